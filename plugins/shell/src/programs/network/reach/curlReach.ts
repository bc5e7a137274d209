import { type NetMethod, parseTarget } from '@toolgate/core';
import type { CommandContext } from '../../../effects/extractTypes.js';
import type { Field } from '../../../state/expandWord.js';
import { has, type ParsedArgs, parseArgs, values } from '../../argv.js';
import { curlConfigFields } from '../curlConfig.js';
import { CURL_LONG_ARG, CURL_LONG_FLAG, CURL_SHORT_ARG, CURL_SHORT_FLAG } from '../curlOptions.js';
import { expandUrlGlob } from '../urlGlob.js';
import { knownUrlPrefix } from '../urlPrefix.js';
import { hostOf, noProxyExempts, reachAddress, unknownHost, variableValue } from './netReach.js';

// Where curl connects (curl(1), 7.88): every URL (operands, `--url`, `url =` of ~/.curlrc and `-K` files,
// curl's own `{a,b}`/`[1-3]` globs expanded), the proxy that carries it (`-x`, `--preproxy`, `--socks*`,
// `<scheme>_proxy`/`ALL_PROXY`, unless `--noproxy`/`NO_PROXY` exempts the host), the address `--resolve` and
// `--connect-to` send it to instead, the DoH server. Redirects (`-L`) are not followed: only the first URL's
// host is known (README, limits).

/** Options whose value leaves this machine as the request's body or upload (curl(1)): the method is `write`. */
export const CURL_SENDS: readonly string[] = [
  '-d',
  '--data',
  '--data-ascii',
  '--data-binary',
  '--data-raw',
  '--data-urlencode',
  '--json',
  '-F',
  '--form',
  '--form-string',
  '-T',
  '--upload-file',
  '--url-query',
  '--mail-rcpt',
  '--mail-from',
];

/** `-X` methods that only fetch; any other (POST, PUT, DELETE, PATCH, a custom one) is a write. */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Schemes whose transfer sends data whatever the options (mail submission, an interactive session). */
const SENDING_SCHEMES = new Set(['smtp', 'smtps', 'telnet']);

/** curl guesses a scheme-less URL's protocol from its first label (curl(1) "URL"), else http. */
const GUESSED: readonly [string, string][] = [
  ['ftp.', 'ftp'],
  ['dict.', 'dict'],
  ['ldap.', 'ldap'],
  ['imap.', 'imap'],
  ['smtp.', 'smtp'],
  ['pop3.', 'pop3'],
];

/** Proxy options whose value is a proxy (`-x [scheme://]host[:port]`), and the scheme of each kind. */
const PROXY_OPTIONS: Readonly<Record<string, string>> = {
  '-x': 'http',
  '--proxy': 'http',
  '--preproxy': 'socks4',
  '--socks4': 'socks4',
  '--socks4a': 'socks4a',
  '--socks5': 'socks5',
  '--socks5-hostname': 'socks5h',
};

const CURL = {
  short: CURL_SHORT_ARG,
  shortFlags: CURL_SHORT_FLAG,
  long: CURL_LONG_ARG,
  flags: CURL_LONG_FLAG,
};

/** The method class of this curl command line. */
export function curlMethod(p: ParsedArgs): NetMethod {
  if (has(p, ...CURL_SENDS)) return 'write';
  for (const x of values(p, '-X', '--request'))
    if (x.uncertain !== undefined || !READ_METHODS.has(x.value.toUpperCase())) return 'write';
  // A header read from a file (`-H @file`) sends that file.
  if (values(p, '-H', '--header', '--proxy-header').some((h) => h.value.startsWith('@'))) return 'write';
  return 'read';
}

function schemeOf(url: string, protoDefault: string | undefined): string {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(url);
  if (m) return m[1]!.toLowerCase();
  if (protoDefault !== undefined) return protoDefault.toLowerCase();
  const lower = url.toLowerCase();
  return GUESSED.find(([prefix]) => lower.startsWith(prefix))?.[1] ?? 'http';
}

/** The proxy curl uses for a scheme from its environment (url.c detect_proxy): `null` when not known. */
function envProxy(cx: CommandContext, scheme: string): { name: string; value: string } | null | undefined {
  const names = [`${scheme}_proxy`];
  // `HTTP_PROXY` is ignored: a CGI program gets it from the client's `Proxy:` header (httpoxy).
  if (scheme !== 'http') names.push(`${scheme.toUpperCase()}_PROXY`);
  names.push('all_proxy', 'ALL_PROXY');
  for (const name of names) {
    const v = variableValue(cx, name);
    if (v === null) return null;
    if (v !== undefined) return { name, value: v };
  }
  return undefined;
}

/** `[+]HOST:PORT:ADDR[,ADDR]…` (`--resolve`): the addresses a host:port is pinned to. */
function resolveEntries(p: ParsedArgs): { host: string; port: string; addrs: string[]; raw: string }[] {
  const out: { host: string; port: string; addrs: string[]; raw: string }[] = [];
  for (const f of values(p, '--resolve')) {
    const m = /^\+?([^:]+):(\d+|\*):(.+)$/.exec(f.value);
    if (f.uncertain !== undefined || !m) {
      out.push({ host: '*', port: '*', addrs: ['?'], raw: f.raw });
      continue;
    }
    out.push({ host: m[1]!.toLowerCase(), port: m[2]!, addrs: m[3]!.split(','), raw: f.value });
  }
  return out;
}

/** `HOST1:PORT1:HOST2:PORT2` (`--connect-to`): empty parts match any / keep the original. */
function connectToEntries(p: ParsedArgs): { from: string; fromPort: string; to: string; toPort: string }[] {
  const out: { from: string; fromPort: string; to: string; toPort: string }[] = [];
  for (const f of values(p, '--connect-to')) {
    const m = /^(\[[^\]]*\]|[^:]*):(\d*):(\[[^\]]*\]|[^:]*):(\d*)$/.exec(f.value);
    if (f.uncertain !== undefined || !m) out.push({ from: '', fromPort: '', to: '?', toPort: '' });
    else out.push({ from: m[1]!.toLowerCase(), fromPort: m[2]!, to: m[3]!, toPort: m[4]! });
  }
  return out;
}

/** The URLs one URL argument stands for after curl's globbing, or the argument itself when not expandable. */
function expanded(u: Field, globoff: boolean): Field[] | string {
  if (globoff || !/[{[]/.test(u.value)) return [u];
  const list = expandUrlGlob(u.value);
  if (list) return list.map((e) => ({ ...u, value: e.url }));
  // Not expandable (malformed, too many): certain only if the glob is past the host.
  const authority = u.value.replace(/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//, '').split(/[/?#]/)[0]!;
  if (/[{}]|\[(?![0-9a-fA-F:.%]*\])/.test(authority)) return 'curl expands a glob in the host';
  return [u];
}

/**
 * The hosts a curl command line reaches: see the file's header. `-L` redirects are a limit (the first
 * URL's host only); several URL groups (`--next`) are judged with every group's options.
 */
export function curlReach(cx: CommandContext): void {
  const p = parseArgs([...curlConfigFields(cx, cx.args), ...cx.args], CURL);
  const method = curlMethod(p);
  const globoff = has(p, '-g', '--globoff');
  const protoDefault = values(p, '--proto-default').at(-1)?.value;
  const noproxyOpt = values(p, '--noproxy').at(-1);
  const noProxy =
    noproxyOpt !== undefined
      ? noproxyOpt.value
      : (variableValue(cx, 'no_proxy') ?? variableValue(cx, 'NO_PROXY') ?? undefined);
  const proxies = Object.keys(PROXY_OPTIONS).flatMap((o) => values(p, o).map((f) => ({ option: o, f })));
  const explicitProxy = proxies.filter((x) => x.option === '-x' || x.option === '--proxy').at(-1);
  const resolves = resolveEntries(p);
  const connectTo = connectToEntries(p);
  // The names curl looks up go to these servers (UDP/TCP 53): the name itself leaves this machine.
  for (const dns of values(p, '--dns-servers'))
    for (const server of dns.uncertain === undefined ? dns.value.split(',') : [''])
      if (server === '')
        unknownHost(cx, dns.raw, { method: 'write', origin: 'curl:dns' }, 'curl --dns-servers is not known');
      else
        reachAddress(
          cx,
          server.includes(':') && !server.startsWith('[') && server.split(':').length > 2
            ? `[${server}]`
            : server,
          {
            method: 'write',
            scheme: 'dns',
            port: 53,
            origin: 'curl:dns',
            reason: 'curl sends its DNS queries here',
          },
        );
  for (const doh of values(p, '--doh-url'))
    reachAddress(cx, doh, { method: 'read', scheme: 'https', origin: 'curl:doh', reason: 'DNS over HTTPS' });

  for (const arg of [...p.operands, ...values(p, '--url')]) {
    if (arg.uncertain !== undefined) {
      // The host of `"https://h/$X"` is known (reachAddress), its proxy is not judged: rare enough to refuse.
      const prefix = knownUrlPrefix(arg);
      if (prefix !== undefined && !/^[a-z]+:\/\/[^/]*[{[]/i.test(prefix)) {
        const scheme = schemeOf(prefix, protoDefault);
        reachAddress(cx, arg, { method, scheme });
        const host = hostOf(prefix, scheme);
        if (host !== undefined) viaProxy(cx, prefix, scheme, host, method, explicitProxy?.f, noProxy);
        continue;
      }
      unknownHost(cx, arg.raw, { method }, `curl: the URL is not known (${arg.uncertain})`);
      continue;
    }
    const urls = expanded(arg, globoff);
    if (typeof urls === 'string') {
      unknownHost(cx, arg.value, { method }, urls);
      continue;
    }
    for (const u of urls) {
      const scheme = schemeOf(u.value, protoDefault);
      if (scheme === 'file') continue; // a local file (curl.ts judges it as a path)
      const m = SENDING_SCHEMES.has(scheme) ? 'write' : method;
      reachAddress(cx, u, { method: m, scheme });
      const host = hostOf(u.value, scheme);
      if (host === undefined) continue;
      viaProxy(cx, u.value, scheme, host, m, explicitProxy?.f, noProxy);
      for (const x of proxies)
        if (x.option !== '-x' && x.option !== '--proxy')
          proxyReach(cx, x.f, PROXY_OPTIONS[x.option]!, m, `curl ${x.option} carries ${u.value}`);
      pinned(cx, u.value, scheme, host, m, resolves, connectTo);
    }
  }
}

function viaProxy(
  cx: CommandContext,
  url: string,
  scheme: string,
  host: string,
  method: NetMethod,
  explicit: Field | undefined,
  noProxy: string | null | undefined,
): void {
  if (explicit !== undefined && explicit.value === '') return; // `-x ""` turns every proxy off
  if (noProxy === null) {
    // Unknown exemptions: the proxy may or may not be used; both hosts are judged.
  } else if (noProxyExempts(noProxy, host)) return;
  if (explicit !== undefined) {
    proxyReach(cx, explicit, 'http', method, `curl -x carries ${url}`);
    return;
  }
  const env = envProxy(cx, scheme);
  if (env === null)
    unknownHost(
      cx,
      `$${scheme}_proxy`,
      { method, origin: 'curl:proxy' },
      'curl: a proxy variable is not known',
    );
  else if (env !== undefined)
    proxyReach(cx, env.value, 'http', method, `curl sends ${url} through $${env.name}`);
}

/** A proxy curl connects to: port 1080 unless it names one (curl(1) `-x`), 443 for an `https://` proxy. */
function proxyReach(
  cx: CommandContext,
  f: Field | string,
  scheme: string,
  method: NetMethod,
  why: string,
): void {
  const value = typeof f === 'string' ? f : f.value;
  const named = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(value)?.[1]?.toLowerCase();
  reachAddress(cx, f, {
    method,
    scheme: named ?? scheme,
    port: named === 'https' ? 443 : 1080,
    origin: 'curl:proxy',
    reason: why,
  });
}

/** `--resolve` and `--connect-to` entries that apply to this URL: the address curl really connects to. */
function pinned(
  cx: CommandContext,
  url: string,
  scheme: string,
  host: string,
  method: NetMethod,
  resolves: ReturnType<typeof resolveEntries>,
  connectTo: ReturnType<typeof connectToEntries>,
): void {
  for (const r of resolves) {
    if (r.host !== '*' && r.host !== host) continue;
    for (const addr of r.addrs) {
      if (addr === '?') {
        unknownHost(cx, r.raw, { method, origin: 'curl:resolve' }, 'curl --resolve is not known');
        continue;
      }
      const ip = addr.replace(/^\[(.*)\]$/, '$1');
      const port = r.port !== '*' ? Number(r.port) : parseTarget(url, scheme).port;
      reachAddress(cx, ip.includes(':') ? `[${ip}]` : ip, {
        method,
        scheme,
        ...(port !== undefined ? { port } : {}),
        origin: 'curl:resolve',
        reason: `curl --resolve ${r.raw}: ${url} connects to this address`,
      });
    }
  }
  for (const c of connectTo) {
    const from = c.from.replace(/^\[(.*)\]$/, '$1');
    if (from !== '' && from !== host) continue;
    if (c.to === '?') {
      unknownHost(cx, url, { method, origin: 'curl:connect-to' }, 'curl --connect-to is not known');
      continue;
    }
    const to = c.to === '' ? host : c.to.replace(/^\[(.*)\]$/, '$1');
    reachAddress(cx, to.includes(':') ? `[${to}]` : to, {
      method,
      scheme,
      ...(c.toPort !== ''
        ? { port: Number(c.toPort) }
        : parseTarget(url, scheme).port !== undefined
          ? { port: parseTarget(url, scheme).port }
          : {}),
      origin: 'curl:connect-to',
      reason: `curl --connect-to: ${url} connects here`,
    });
  }
}
