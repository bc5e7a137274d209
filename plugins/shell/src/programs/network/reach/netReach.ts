import { type NetMethod, parseTarget } from '@toolgate/core';
import type { CommandContext } from '../../../effects/extractTypes.js';
import type { Field } from '../../../state/expandWord.js';
import { knownUrlPrefix } from '../urlPrefix.js';

/** Well-known ports of schemes core's DEFAULT_PORTS does not list (IANA service names). */
const MORE_PORTS: Readonly<Record<string, number>> = {
  smtp: 25,
  smtps: 465,
  imap: 143,
  imaps: 993,
  pop3: 110,
  pop3s: 995,
  ldap: 389,
  ldaps: 636,
  dict: 2628,
  telnet: 23,
  tftp: 69,
  gopher: 70,
  mqtt: 1883,
  rtsp: 554,
  smb: 445,
  smbs: 445,
};

// What every network model shares: an address (a URL, `host:port`, `user@host:path`) as a reach, through
// core's one parser (`parseTarget`: userinfo dropped, decimal and hex IPv4 and IDNA normalised).

export interface ReachOptions {
  method: NetMethod;
  /** The scheme of an address that names none (`http` for curl, `ssh` for scp's `host:path`). */
  scheme?: string;
  /** After `shell:` (default the command's name): `curl:proxy`, `git:.git/config`. */
  origin?: string;
  /** Why this host is reached, when it is not the plain target (a proxy, a `--resolve` address). */
  reason?: string;
  /** The port when the address names none and the scheme's default is not the one used (`ssh -p`). */
  port?: number;
}

/** Reports the host an address names; one whose host cannot be known is an uncertain reach. */
export function reachAddress(cx: CommandContext, address: Field | string, o: ReachOptions): void {
  const f = typeof address === 'string' ? undefined : address;
  const raw = typeof address === 'string' ? address : address.value;
  if (f?.uncertain !== undefined) {
    // `"https://api.github.com/repos/$OWNER"`: only the path is not known — the host is.
    const prefix = knownUrlPrefix(f);
    if (prefix !== undefined) {
      reachAddress(cx, prefix, { ...o, reason: o.reason ?? `the rest of ${f.raw} is not known` });
      return;
    }
    unknownHost(cx, f.raw, o, `${cx.name}: the address is not known (${f.uncertain})`);
    return;
  }
  const t = parseTarget(raw, o.scheme);
  if (t.host === null) {
    unknownHost(cx, raw, o, `${cx.name}: ${t.reason ?? `cannot know the host of ${raw}`}`);
    return;
  }
  const port = explicitPort(raw) ? t.port : (o.port ?? t.port ?? MORE_PORTS[t.scheme ?? o.scheme ?? '']);
  cx.reach({
    raw,
    ...(t.scheme !== undefined ? { scheme: t.scheme } : o.scheme !== undefined ? { scheme: o.scheme } : {}),
    host: t.host,
    ...(port !== undefined ? { port } : {}),
    method: o.method,
    ...(o.origin !== undefined ? { origin: o.origin } : {}),
    certain: true,
    ...(o.reason !== undefined ? { reason: o.reason } : {}),
  });
}

/** A reach whose host cannot be known: never allowed by a policy that restricts the network. */
export function unknownHost(cx: CommandContext, raw: string, o: ReachOptions, reason: string): void {
  cx.reach({
    raw: raw || '?',
    ...(o.scheme !== undefined ? { scheme: o.scheme } : {}),
    host: null,
    method: o.method,
    ...(o.origin !== undefined ? { origin: o.origin } : {}),
    certain: false,
    reason: o.reason !== undefined ? `${reason} (${o.reason})` : reason,
  });
}

/** Whether an address spells its port (`host:8080`, `https://h:8443/x`, `[::1]:22`). */
function explicitPort(raw: string): boolean {
  const rest = raw.replace(/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//, '');
  const authority = rest.split(/[/?#]/)[0]!.replace(/^.*@/, '');
  if (authority.startsWith('[')) return /\]:\d+$/.test(authority);
  return /^[^:]+:\d+$/.test(authority);
}

/** The host part of an address for matching no-proxy lists, or undefined when it has none. */
export function hostOf(raw: string, scheme?: string): string | undefined {
  return parseTarget(raw, scheme).host ?? undefined;
}

/**
 * Whether a no-proxy list (`NO_PROXY`, `--noproxy`, wget's `no_proxy`) exempts a host: `*` every host; else
 * comma-separated names, each matching the host itself and its subdomains (a leading `.` is ignored).
 * curl and wget agree on this much; CIDR entries (curl 7.86+) are not read, so they exempt nothing here —
 * the proxy is then reported as well, which can only add a host to judge.
 */
export function noProxyExempts(list: string | undefined, host: string): boolean {
  if (list === undefined || list === '') return false;
  for (const entry of list.split(/[,\s]+/)) {
    const e = entry.trim().toLowerCase().replace(/^\./, '');
    if (e === '') continue;
    if (e === '*') return true;
    if (host === e || host.endsWith(`.${e}`)) return true;
  }
  return false;
}

/** A variable's value, or why it cannot be used: `undefined` unset or empty. */
export function variableValue(cx: CommandContext, name: string): string | null | undefined {
  const v = cx.variable(name);
  return v === '' ? undefined : v;
}

/**
 * How a client library reads proxy variables: `curl` (libcurl: `<scheme>_proxy`, upper case too except
 * `HTTP_PROXY`, then `all_proxy`/`ALL_PROXY`), `lower` (wget: `<scheme>_proxy` only), `both` (Python requests,
 * Go's net/http, npm: either case of `<scheme>_proxy`, requests also `all_proxy`).
 */
export type ProxyEnvStyle = 'curl' | 'lower' | 'both';

/**
 * The proxy a program takes from its environment for a URL's scheme and host, honouring `no_proxy`/`NO_PROXY`:
 * `undefined` none, `null` a variable that is not known, else the variable and its value.
 */
export function environmentProxy(
  cx: CommandContext,
  scheme: string,
  host: string,
  style: ProxyEnvStyle,
): { name: string; value: string } | null | undefined {
  const noProxy = variableValue(cx, 'no_proxy') ?? variableValue(cx, 'NO_PROXY');
  if (typeof noProxy === 'string' && noProxyExempts(noProxy, host)) return undefined;
  const names = [`${scheme}_proxy`];
  if (style === 'both' || (style === 'curl' && scheme !== 'http'))
    names.push(`${scheme.toUpperCase()}_PROXY`);
  if (style !== 'lower') names.push('all_proxy', 'ALL_PROXY');
  for (const name of names) {
    const v = variableValue(cx, name);
    if (v === null) return null;
    if (v !== undefined) return { name, value: v };
  }
  return undefined;
}

/** Reports the environment's proxy for `url` (see `environmentProxy`) as a reach of `origin` (`pip:proxy`). */
export function environmentProxyReach(
  cx: CommandContext,
  url: string,
  method: NetMethod,
  style: ProxyEnvStyle,
  origin: string,
): void {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined || (scheme !== 'http' && scheme !== 'https')) return;
  const host = hostOf(url, scheme);
  if (host === undefined) return;
  const p = environmentProxy(cx, scheme, host, style);
  if (p === null)
    unknownHost(cx, `$${scheme}_proxy`, { method, origin }, `${cx.name}: a proxy variable is not known`);
  else if (p !== undefined && p.value !== '')
    reachAddress(cx, p.value, {
      method,
      scheme: 'http',
      origin,
      reason: `${cx.name} sends ${url} through $${p.name}`,
    });
}
