import { ipv4Number, ipv6Groups } from './ipAddress.js';
import { normaliseHost } from './parseTarget.js';

/**
 * One way a host pattern matches, with how specific it is. A pattern may compile to several (`localhost`:
 * the name, `*.localhost`, 127.0.0.0/8, ::1, 0.0.0.0 and ::).
 */
export type HostMatcher =
  | { kind: 'any'; rank: number }
  | { kind: 'name'; name: string; rank: number }
  /** `*.suffix` (subdomains at any depth) or, with `apex`, `.suffix` (the suffix itself too). */
  | { kind: 'suffix'; suffix: string; apex: boolean; rank: number }
  | { kind: 'v4'; net: number; prefix: number; rank: number }
  | { kind: 'v6'; net: readonly number[]; prefix: number; rank: number };

/** An exact name or address outranks every wildcard and range. */
export const EXACT_RANK = 10_000;

function suffixRank(suffix: string): number {
  // More labels in the suffix: more specific (`*.a.example.com` beats `*.example.com`), below any exact name.
  return 200 + suffix.split('.').length;
}

function addressMatcher(text: string, prefix: number | undefined): HostMatcher | string {
  const v4 = ipv4Number(text);
  if (v4 !== undefined) {
    const p = prefix ?? 32;
    if (p > 32) return `an IPv4 prefix length is at most 32`;
    if (p < 32 && v4 % 2 ** (32 - p) !== 0)
      return `the address has bits set beyond /${p} (write the network address)`;
    return { kind: 'v4', net: v4, prefix: p, rank: p === 32 ? EXACT_RANK : p };
  }
  const v6 = ipv6Groups(text);
  if (v6 !== undefined) {
    const p = prefix ?? 128;
    if (p > 128) return `an IPv6 prefix length is at most 128`;
    let bits = p;
    for (const g of v6) {
      const keep = Math.max(0, Math.min(16, bits));
      if ((g & (0xffff >> keep)) !== 0)
        return `the address has bits set beyond /${p} (write the network address)`;
      bits -= 16;
    }
    return { kind: 'v6', net: v6, prefix: p, rank: p === 128 ? EXACT_RANK : p };
  }
  return 'not an IP address';
}

const LOCALHOST: readonly HostMatcher[] = Object.freeze([
  { kind: 'name', name: 'localhost', rank: EXACT_RANK },
  // RFC 6761: every name under .localhost is the loopback host.
  { kind: 'suffix', suffix: 'localhost', apex: false, rank: suffixRank('localhost') },
  { kind: 'v4', net: 0x7f000000, prefix: 8, rank: 8 },
  { kind: 'v6', net: [0, 0, 0, 0, 0, 0, 0, 1], prefix: 128, rank: EXACT_RANK },
  // Connecting to 0.0.0.0 or :: reaches this machine on Linux: the same host as localhost.
  { kind: 'v4', net: 0, prefix: 32, rank: EXACT_RANK },
  { kind: 'v6', net: [0, 0, 0, 0, 0, 0, 0, 0], prefix: 128, rank: EXACT_RANK },
]);

/**
 * Compiles a host pattern: `*`; `localhost`; an exact name (`github.com`, IDNA and case normalised);
 * `*.example.com` (subdomains at any depth, not `example.com`); `.example.com` or `**.example.com` (the name
 * and its subdomains); an IPv4/IPv6 address (`[::1]` too) or CIDR range (`10.0.0.0/8`, `fd00::/8`).
 * Returns the matchers, or why the pattern is not one.
 */
export function compileHostPattern(pattern: string): readonly HostMatcher[] | string {
  if (typeof pattern !== 'string' || pattern.trim() === '') return 'expected a host pattern';
  const text = pattern.trim();
  if (text === '*') return [{ kind: 'any', rank: 0 }];
  if (text.toLowerCase() === 'localhost') return LOCALHOST;
  if (/[/\s]/.test(text) && !/^[^\s/]+\/\d{1,3}$/.test(text))
    return 'a host pattern is a name, a wildcard name, an address or a CIDR range (no scheme, path or spaces)';
  const cidr = /^(.+)\/(\d{1,3})$/.exec(text);
  if (cidr) {
    const m = addressMatcher((cidr[1] as string).replace(/^\[(.*)\]$/, '$1'), Number(cidr[2]));
    return typeof m === 'string' ? `${m}` : [m];
  }
  if (ipv4Number(text) !== undefined || text.includes(':')) {
    const m = addressMatcher(text.replace(/^\[(.*)\]$/, '$1'), undefined);
    return typeof m === 'string'
      ? text.includes(':') && !text.startsWith('[') && /^[^:]+:\d+$/.test(text)
        ? "a host pattern has no port: use the rule's `ports`"
        : m
      : [m];
  }
  let rest = text;
  let kind: 'name' | 'sub' | 'apex' = 'name';
  if (rest.startsWith('**.')) {
    kind = 'apex';
    rest = rest.slice(3);
  } else if (rest.startsWith('*.')) {
    kind = 'sub';
    rest = rest.slice(2);
  } else if (rest.startsWith('.')) {
    kind = 'apex';
    rest = rest.slice(1);
  }
  if (rest.includes('*')) return 'a wildcard is only allowed as the first label (`*.example.com`)';
  const name = normaliseHost(rest);
  if (name === null || name.includes(':')) return 'not a valid host name';
  if (kind !== 'name' && ipv4Number(name) !== undefined)
    return 'a wildcard applies to names, not addresses (use a CIDR range)';
  // `2130706433` and `0x7f.1` are addresses: normalised, they are ranges of one.
  if (kind === 'name') {
    const asAddress = addressMatcher(name, undefined);
    if (typeof asAddress !== 'string') return [asAddress];
    return [{ kind: 'name', name, rank: EXACT_RANK }];
  }
  return [{ kind: 'suffix', suffix: name, apex: kind === 'apex', rank: suffixRank(name) }];
}
