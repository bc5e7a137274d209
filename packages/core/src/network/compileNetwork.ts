import { createHash } from 'node:crypto';
import { compileHostPattern, type HostMatcher } from './hostPattern.js';
import { ipv4Number, ipv6Groups, ipv6InPrefix, mappedIpv4 } from './ipAddress.js';
import { type NetworkRule, type NetworkSection, parseNetworkSection } from './networkSection.js';
import { normaliseHost } from './parseTarget.js';
import type {
  CompiledNetworkPolicy,
  NetMethod,
  NetworkAction,
  NetworkRequest,
  NetworkVerdict,
} from './types.js';

/** A compiled network policy with its rules (for explain and lint). */
export interface NetworkPolicy extends CompiledNetworkPolicy {
  /** Every rule, presets expanded, in the order written. */
  readonly rules: readonly NetworkRule[];
  /** The rule that decides `request` (absent: the default did) and the verdict. */
  explain(request: NetworkRequest): { verdict: NetworkVerdict; rule?: NetworkRule; host: string | null };
}

const SEVERITY: Record<NetworkAction, number> = { allow: 0, prompt: 1, deny: 2 };

interface Entry {
  rule: NetworkRule;
  index: number;
  rank: number;
  filters: number;
  severity: number;
  method?: NetMethod;
  ports?: ReadonlySet<number>;
  schemes?: ReadonlySet<string>;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Whether `a` outranks `b`: more specific host, then more filters, then more restrictive, then earlier. */
function outranks(a: Entry, b: Entry): boolean {
  if (a.rank !== b.rank) return a.rank > b.rank;
  if (a.filters !== b.filters) return a.filters > b.filters;
  if (a.severity !== b.severity) return a.severity > b.severity;
  return a.index < b.index;
}

/**
 * A restrictive rule (deny, prompt) whose port or scheme filter cannot be checked (the request does not say)
 * applies; an allow does not. Fail closed both ways.
 */
function applies(e: Entry, req: NetworkRequest, method: NetMethod): boolean {
  if (e.method !== undefined && e.method !== method) return false;
  if (e.ports !== undefined) {
    if (req.port === undefined) {
      if (e.severity === 0) return false;
    } else if (!e.ports.has(req.port)) return false;
  }
  if (e.schemes !== undefined) {
    const scheme = typeof req.scheme === 'string' ? req.scheme.toLowerCase() : undefined;
    if (scheme === undefined) {
      if (e.severity === 0) return false;
    } else if (!e.schemes.has(scheme)) return false;
  }
  return true;
}

// Already in the WHATWG parser's output form: lower-case LDH labels, no punycode to validate, and a last label
// that is no number (`2130706433`, `0x7f.1`, `127.1` are IPv4 addresses the parser rewrites). Such a host is
// what normaliseHost would return; anything else goes through it (a URL parse costs ~0.6 µs).
const CANONICAL_NAME = /^(?!.*(?:^|\.)xn--)[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$/;
const NUMERIC_LABEL = /(?:^|\.)(?:0x[0-9a-f]*|[0-9]+)$/;

function canonicalHost(host: unknown): string | null {
  if (typeof host !== 'string') return null;
  if (host.length <= 253 && CANONICAL_NAME.test(host) && !NUMERIC_LABEL.test(host)) return host;
  return normaliseHost(host);
}

function hashOf(section: { default: NetworkAction; rules: readonly NetworkRule[] }): string {
  const body = {
    default: section.default,
    rules: section.rules.map((r) => [r.host, r.action, r.method ?? 'any', r.ports ?? [], r.schemes ?? []]),
  };
  return createHash('sha256').update(JSON.stringify(body)).digest('hex');
}

/**
 * Compiles validated rules (`parseNetworkSection`, or layered ones) into the matcher. Precedence, the same
 * for the static judgement and the sandbox's proxy:
 *
 * 1. the most specific host pattern that matches wins: an exact name or address, then wildcard names by the
 *    length of their suffix (`*.a.example.com` over `*.example.com`), then CIDR ranges by prefix length,
 *    then `*`; `.example.com` and `*.example.com` rank alike;
 * 2. between equally specific patterns, the rule with more filters (method, ports, schemes) wins;
 * 3. then the most restrictive action (deny > prompt > allow);
 * 4. no rule matches: the default (`deny` when the section names none).
 *
 * So `deny evil.com` is never out-ranked by `allow *`, and `allow api.example.com` carves an exception out
 * of `deny *.example.com`. Matching is on normalised hosts: no DNS, no per-call pattern compilation.
 */
export function compileNetworkRules(section: NetworkSection): NetworkPolicy {
  const defaultAction: NetworkAction = section.default ?? 'deny';
  const rules = Object.freeze(section.rules.map((r) => Object.freeze({ ...r })));
  const any: Entry[] = [];
  const names = new Map<string, Entry[]>();
  const suffixes = new Map<string, Array<Entry & { apex: boolean }>>();
  // IPv4 ranges by prefix length, then by network number: one map lookup per distinct prefix length.
  const v4: Map<number, Map<number, Entry[]>> = new Map();
  const v6: Array<Entry & { net: readonly number[]; prefix: number }> = [];
  rules.forEach((rule, index) => {
    const matchers = compileHostPattern(rule.host);
    if (typeof matchers === 'string') throw new Error(`${rule.source}: ${matchers}`);
    const filters = (rule.method ? 1 : 0) + (rule.ports ? 1 : 0) + (rule.schemes ? 1 : 0);
    const base = {
      rule,
      index,
      filters,
      severity: SEVERITY[rule.action],
      ...(rule.method ? { method: rule.method } : {}),
      ...(rule.ports ? { ports: new Set(rule.ports) } : {}),
      ...(rule.schemes ? { schemes: new Set(rule.schemes) } : {}),
    };
    for (const m of matchers as readonly HostMatcher[]) {
      const entry = { ...base, rank: m.rank };
      if (m.kind === 'any') any.push(entry);
      else if (m.kind === 'name') push(names, m.name, entry);
      else if (m.kind === 'suffix') push(suffixes, m.suffix, { ...entry, apex: m.apex });
      else if (m.kind === 'v4') {
        let byNet = v4.get(m.prefix);
        if (!byNet) {
          byNet = new Map();
          v4.set(m.prefix, byNet);
        }
        push(byNet, Math.floor(m.net / 2 ** (32 - m.prefix)), entry);
      } else v6.push({ ...entry, net: m.net, prefix: m.prefix });
    }
  });
  const unrestricted = defaultAction === 'allow' && rules.every((r) => r.action === 'allow');
  const defaultVerdict: NetworkVerdict = Object.freeze({
    action: defaultAction,
    rule: `default: ${defaultAction}`,
  });

  const allowed = (method: NetMethod): string[] => {
    const out = new Set<string>(defaultAction === 'allow' ? ['*'] : []);
    for (const r of rules)
      if (r.action === 'allow' && (r.method === undefined || r.method === method)) out.add(r.host);
    return [...out];
  };
  const allowedBy: Record<NetMethod, readonly string[]> = {
    read: Object.freeze(allowed('read')),
    write: Object.freeze(allowed('write')),
  };

  const best = (req: NetworkRequest, host: string): Entry | undefined => {
    const method: NetMethod = req.method === 'read' ? 'read' : 'write';
    let top: Entry | undefined;
    const consider = (e: Entry) => {
      if ((top === undefined || outranks(e, top)) && applies(e, req, method)) top = e;
    };
    for (const e of any) consider(e);
    let addr4 = ipv4Number(host);
    const groups = addr4 === undefined ? ipv6Groups(host) : undefined;
    if (groups) {
      for (const e of v6) if (ipv6InPrefix(groups, e.net, e.prefix)) consider(e);
      addr4 = mappedIpv4(groups);
    }
    if (addr4 !== undefined) {
      for (const [prefix, byNet] of v4)
        for (const e of byNet.get(Math.floor(addr4 / 2 ** (32 - prefix))) ?? []) consider(e);
      return top;
    }
    if (groups) return top;
    for (const e of names.get(host) ?? []) consider(e);
    for (const e of suffixes.get(host) ?? []) if (e.apex) consider(e);
    for (let dot = host.indexOf('.'); dot !== -1; dot = host.indexOf('.', dot + 1))
      for (const e of suffixes.get(host.slice(dot + 1)) ?? []) consider(e);
    return top;
  };

  const explain = (request: NetworkRequest) => {
    if (unrestricted)
      return { verdict: defaultVerdict, host: typeof request?.host === 'string' ? request.host : null };
    const host = request !== null && typeof request === 'object' ? canonicalHost(request.host) : null;
    if (host === null)
      return {
        verdict: { action: 'deny' as const, rule: `invalid host ${JSON.stringify(String(request?.host))}` },
        host,
      };
    const top = best(request, host);
    if (!top) return { verdict: defaultVerdict, host };
    return {
      verdict: { action: top.rule.action, rule: top.rule.text, source: top.rule.source },
      rule: top.rule,
      host,
    };
  };

  return Object.freeze({
    unrestricted,
    defaultAction,
    rules,
    hash: hashOf({ default: defaultAction, rules }),
    decide: (request: NetworkRequest): NetworkVerdict => explain(request).verdict,
    explain,
    allowedHosts: (method: NetMethod): string[] => [...(allowedBy[method] ?? allowedBy.write)],
  });
}

/**
 * Compiles a policy's `network` section (`{default, presets, rules}`) once; `decide` is pure and does no I/O.
 * A bad section throws `TOOLGATE_ERR_INVALID_CONFIG` naming `source`, the field and the value.
 *
 * @example
 * ```ts
 * import { compileNetworkPolicy } from '@toolgate/core';
 * const net = compileNetworkPolicy(
 *   { default: 'deny', presets: ['npm'], rules: [{ host: '*.example.com', action: 'allow', method: 'read' }] },
 *   '/ws/toolgate.yaml',
 * );
 * net.decide({ host: 'registry.npmjs.org', port: 443, scheme: 'https', method: 'read' }); // allow
 * net.decide({ host: 'evil.com', method: 'write' }); // {action: 'deny', rule: 'default: deny'}
 * ```
 */
export function compileNetworkPolicy(
  spec: unknown,
  source: string,
  options: { field?: string } = {},
): NetworkPolicy {
  return compileNetworkRules(parseNetworkSection(spec, source, options.field ?? 'network'));
}
