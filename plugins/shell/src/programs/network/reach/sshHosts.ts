import { wildcardSource } from '../../fnmatch.js';

// ssh_config(5) as far as where ssh connects: the `Host` blocks whose patterns match the name given on the
// command line, first value wins, `-o` before any file. `Match` blocks cannot be evaluated here.

/** What decides where ssh connects for one destination. */
export interface SshHostSettings {
  hostName?: string;
  port?: string;
  proxyJump?: string;
  proxyCommand?: string;
  /** `CanonicalizeHostname` other than `no`: the name gets a domain appended (ssh_config(5)). */
  canonicalize?: string;
  /** A `Match` block sets one of the keys above: what applies is not known. */
  unknown?: string;
}

const KEYS: Readonly<Record<string, keyof SshHostSettings>> = {
  hostname: 'hostName',
  port: 'port',
  proxyjump: 'proxyJump',
  proxycommand: 'proxyCommand',
  canonicalizehostname: 'canonicalize',
};

function patternMatches(patterns: string, host: string): boolean {
  let hit = false;
  for (const raw of patterns.split(/[\s,]+/)) {
    if (raw === '') continue;
    const neg = raw.startsWith('!');
    const re = new RegExp(`^${wildcardSource(neg ? raw.slice(1) : raw, true)}$`, 'i');
    if (re.test(host)) {
      if (neg) return false;
      hit = true;
    }
  }
  return hit;
}

/** `-o Key=Value` / `-o "Key Value"` as a config line. */
export function optionLine(value: string): string {
  return value.replace(/^\s*([A-Za-z0-9]+)\s*=\s*/, '$1 ');
}

/**
 * The settings for `host` from config lines (command-line `-o` lines first, then the files' text, includes
 * already in place), ssh's "first obtained value" rule.
 */
export function sshHostSettings(lines: readonly string[], host: string): SshHostSettings {
  const out: SshHostSettings = {};
  let applies = true;
  let inMatch = false;
  for (const line of lines) {
    const m = /^\s*([A-Za-z0-9]+)(?:\s*=\s*|\s+)(.*?)\s*$/.exec(line);
    if (!m || line.trim().startsWith('#')) continue;
    const key = m[1]!.toLowerCase();
    const value = m[2]!.replace(/^"(.*)"$/, '$1');
    if (key === 'host') {
      applies = patternMatches(value, host);
      inMatch = false;
      continue;
    }
    if (key === 'match') {
      inMatch = !/^all$/i.test(value);
      applies = !inMatch;
      continue;
    }
    const field = KEYS[key];
    if (field === undefined || field === 'unknown') continue;
    if (inMatch) {
      out.unknown ??= `a Match block (${line.trim()}) may set ${m[1]}`;
      continue;
    }
    if (applies && out[field] === undefined) out[field] = value;
  }
  return out;
}
