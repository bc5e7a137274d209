import { describeValue, ToolgateError } from '../errors.js';
import { compileHostPattern } from './hostPattern.js';
import { NETWORK_PRESETS } from './presets.js';
import type { NetMethod, NetworkAction } from './types.js';

/** One network rule, validated, with where it came from. */
export interface NetworkRule {
  /** The host pattern as written (trimmed). */
  host: string;
  action: NetworkAction;
  /** Only requests of this method; absent: any. */
  method?: NetMethod;
  /** Only these ports (absent: any). */
  ports?: readonly number[];
  /** Only these schemes, lower case (absent: any). */
  schemes?: readonly string[];
  description?: string;
  /** The rule in words, for explain, the audit and the envelope: `allow *.npmjs.org read`. */
  text: string;
  /** `file#network.rules[i]`, or `file#network.presets[j]` for a preset's host. */
  source: string;
}

/** A `network` section, validated: its default (absent: inherited when layered, else `deny`) and rules. */
export interface NetworkSection {
  default?: NetworkAction;
  rules: readonly NetworkRule[];
}

const ACTIONS: readonly NetworkAction[] = ['allow', 'deny', 'prompt'];
const SECTION_KEYS = new Set(['default', 'rules', 'presets']);
const RULE_KEYS = new Set(['host', 'action', 'method', 'ports', 'schemes', 'description']);

function configError(file: string, field: string, value: unknown, expected: string): ToolgateError {
  return new ToolgateError(
    'TOOLGATE_ERR_INVALID_CONFIG',
    `${file}: field ${field}: ${expected}, got ${describeValue(value)}`,
    { file, field },
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The words of a rule: `allow *.npmjs.org read ports 443 schemes https`. */
export function ruleText(r: Omit<NetworkRule, 'text' | 'source'>): string {
  let out = `${r.action} ${r.host}`;
  if (r.method) out += ` ${r.method}`;
  if (r.ports) out += ` ports ${r.ports.join(',')}`;
  if (r.schemes) out += ` schemes ${r.schemes.join(',')}`;
  return out;
}

function ruleOf(raw: unknown, file: string, field: string): NetworkRule {
  if (!isRecord(raw))
    throw configError(file, field, raw, 'expected {host, action, method?, ports?, schemes?}');
  for (const key of Object.keys(raw))
    if (!RULE_KEYS.has(key)) throw configError(file, `${field}.${key}`, raw[key], 'unknown key');
  const host = raw.host;
  if (typeof host !== 'string') throw configError(file, `${field}.host`, host, 'expected a host pattern');
  const compiled = compileHostPattern(host);
  if (typeof compiled === 'string') throw configError(file, `${field}.host`, host, compiled);
  const action = raw.action;
  if (!ACTIONS.includes(action as NetworkAction))
    throw configError(file, `${field}.action`, action, 'expected allow, deny or prompt');
  const rule: Omit<NetworkRule, 'text' | 'source'> = { host: host.trim(), action: action as NetworkAction };
  if (raw.method !== undefined) {
    if (raw.method !== 'read' && raw.method !== 'write' && raw.method !== 'any')
      throw configError(file, `${field}.method`, raw.method, 'expected read, write or any');
    if (raw.method !== 'any') rule.method = raw.method;
  }
  if (raw.ports !== undefined) {
    const ports = raw.ports;
    if (!Array.isArray(ports) || ports.length === 0)
      throw configError(file, `${field}.ports`, ports, 'expected a non-empty list of ports');
    ports.forEach((p, i) => {
      if (!Number.isInteger(p) || (p as number) < 1 || (p as number) > 65535)
        throw configError(file, `${field}.ports[${i}]`, p, 'expected a port number 1-65535');
    });
    rule.ports = [...new Set(ports as number[])].sort((a, b) => a - b);
  }
  if (raw.schemes !== undefined) {
    const schemes = raw.schemes;
    if (!Array.isArray(schemes) || schemes.length === 0)
      throw configError(file, `${field}.schemes`, schemes, 'expected a non-empty list of schemes');
    schemes.forEach((s, i) => {
      if (typeof s !== 'string' || !/^[a-zA-Z][a-zA-Z0-9+.-]*$/.test(s))
        throw configError(file, `${field}.schemes[${i}]`, s, 'expected a scheme such as https');
    });
    rule.schemes = [...new Set((schemes as string[]).map((s) => s.toLowerCase()))].sort();
  }
  if (raw.description !== undefined) {
    if (typeof raw.description !== 'string')
      throw configError(file, `${field}.description`, raw.description, 'expected text');
    rule.description = raw.description;
  }
  return { ...rule, text: ruleText(rule), source: `${file}#${field}` };
}

/**
 * Validates a policy's `network` section (`{default?, presets?, rules?}`) and expands its presets. A bad value
 * throws `TOOLGATE_ERR_INVALID_CONFIG` naming the file, the field (`network.rules[2].host`) and the value.
 * Preset hosts come first, then the rules: order never decides (see `compileNetworkRules`).
 */
export function parseNetworkSection(spec: unknown, file: string, field = 'network'): NetworkSection {
  if (!isRecord(spec)) throw configError(file, field, spec, 'expected {default?, presets?, rules?}');
  for (const key of Object.keys(spec))
    if (!SECTION_KEYS.has(key)) throw configError(file, `${field}.${key}`, spec[key], 'unknown key');
  const section: { default?: NetworkAction; rules: NetworkRule[] } = { rules: [] };
  if (spec.default !== undefined) {
    if (!ACTIONS.includes(spec.default as NetworkAction))
      throw configError(file, `${field}.default`, spec.default, 'expected allow, deny or prompt');
    section.default = spec.default as NetworkAction;
  }
  if (spec.presets !== undefined) {
    if (!Array.isArray(spec.presets))
      throw configError(file, `${field}.presets`, spec.presets, 'expected a list of preset names');
    spec.presets.forEach((name, j) => {
      const hosts =
        typeof name === 'string' && Object.hasOwn(NETWORK_PRESETS, name) ? NETWORK_PRESETS[name] : undefined;
      if (!hosts)
        throw configError(
          file,
          `${field}.presets[${j}]`,
          name,
          `expected one of ${Object.keys(NETWORK_PRESETS).join(', ')}`,
        );
      for (const host of hosts)
        section.rules.push({
          host,
          action: 'allow',
          text: `allow ${host} (preset ${name})`,
          source: `${file}#${field}.presets[${j}]`,
        });
    });
  }
  if (spec.rules !== undefined) {
    if (!Array.isArray(spec.rules))
      throw configError(file, `${field}.rules`, spec.rules, 'expected a list of {host, action}');
    spec.rules.forEach((r, i) => {
      section.rules.push(ruleOf(r, file, `${field}.rules[${i}]`));
    });
  }
  return section;
}
