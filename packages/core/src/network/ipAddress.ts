/**
 * IP addresses as numbers, for CIDR rules. Input is a host already through `normaliseHost` (the WHATWG
 * parser writes every IPv4 form as dotted decimal and every IPv6 address compressed, lower case).
 */

/** An IPv4 address as an unsigned 32-bit number, or `undefined` when `host` is not one. */
export function ipv4Number(host: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return undefined;
  let n = 0;
  for (let i = 1; i <= 4; i++) {
    const octet = Number(m[i]);
    if (octet > 255) return undefined;
    n = n * 256 + octet;
  }
  return n;
}

/** An IPv6 address as eight 16-bit groups, or `undefined` when `host` is not one (brackets optional). */
export function ipv6Groups(host: string): number[] | undefined {
  let h = host;
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (!h.includes(':')) return undefined;
  // A dotted tail (`::ffff:127.0.0.1`), as a rule may be written; normalised hosts never have one.
  const dotted = /^(.*:)(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/.exec(h);
  const tail: number[] = [];
  if (dotted) {
    const v4 = ipv4Number(dotted[2] as string);
    if (v4 === undefined) return undefined;
    tail.push(Math.floor(v4 / 65536), v4 % 65536);
    h = dotted[1] as string;
    if (h.endsWith(':') && !h.endsWith('::')) h = h.slice(0, -1);
  }
  const halves = h.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string): number[] | undefined => {
    if (part === '') return [];
    const out: number[] = [];
    for (const g of part.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(Number.parseInt(g, 16));
    }
    return out;
  };
  const head = parse(halves[0] as string);
  const rest = halves.length === 2 ? parse(halves[1] as string) : [];
  if (!head || !rest) return undefined;
  const given = head.length + rest.length + tail.length;
  if (halves.length === 1 && given !== 8) return undefined;
  if (halves.length === 2 && given > 7) return undefined;
  return [...head, ...new Array<number>(8 - given).fill(0), ...rest, ...tail];
}

/**
 * The IPv4 address an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`, written `::ffff:7f00:1`) reaches: the
 * kernel sends a socket connected to it to the IPv4 host, so IPv4 rules must judge it.
 */
export function mappedIpv4(groups: readonly number[]): number | undefined {
  for (let i = 0; i < 5; i++) if (groups[i] !== 0) return undefined;
  if (groups[5] !== 0xffff) return undefined;
  return (groups[6] as number) * 65536 + (groups[7] as number);
}

/** Whether the first `prefix` bits of two IPv6 addresses agree. */
export function ipv6InPrefix(addr: readonly number[], net: readonly number[], prefix: number): boolean {
  let bits = prefix;
  for (let i = 0; i < 8 && bits > 0; i++) {
    const take = Math.min(16, bits);
    const mask = (0xffff << (16 - take)) & 0xffff;
    if (((addr[i] as number) & mask) !== ((net[i] as number) & mask)) return false;
    bits -= take;
  }
  return true;
}
