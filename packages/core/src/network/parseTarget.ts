import type { NetTarget } from './types.js';

export const DEFAULT_PORTS: Readonly<Record<string, number>> = Object.freeze({
  http: 80,
  https: 443,
  ws: 80,
  wss: 443,
  ftp: 21,
  ftps: 990,
  ssh: 22,
  sftp: 22,
  scp: 22,
  'git+ssh': 22,
  'ssh+git': 22,
  git: 9418,
  rsync: 873,
  socks5: 1080,
  socks5h: 1080,
  socks4: 1080,
  socks4a: 1080,
});

/**
 * Normalises a host name the way the network will see it: through the WHATWG URL host parser (IDNA to
 * punycode, lower case, `2130706433`/`0x7f.1`/`0177.0.0.1` to `127.0.0.1`, IPv6 compressed, bracketless).
 * Returns `null` for what is no host at all (empty, spaces, forbidden code points).
 */
export function normaliseHost(host: string): string | null {
  if (typeof host !== 'string' || host === '' || host.length > 512) return null;
  let h = host;
  if (h.includes(':') && !h.startsWith('[')) h = `[${h}]`;
  try {
    const url = new URL(`http://${h}/`);
    if (url.username !== '' || url.password !== '' || url.port !== '' || url.pathname !== '/') return null;
    let out = url.hostname;
    if (out.startsWith('[') && out.endsWith(']')) out = out.slice(1, -1);
    // A trailing dot names the same host (`example.com.`); rules match the name without it.
    if (out.endsWith('.') && out.length > 1) out = out.slice(0, -1);
    return out === '' ? null : out;
  } catch {
    return null;
  }
}

/**
 * Parses a URL (`https://u:p@Host:8443/x`), a scp-like remote (`git@github.com:o/r.git`, `host:path`) or a
 * bare `host[:port]`. Userinfo is dropped (`http://ok.com@evil.com` reaches `evil.com`). Anything with a
 * shell variable, a glob or a control character is uncertain.
 */
export function parseTarget(raw: string, defaultScheme?: string): NetTarget {
  if (typeof raw !== 'string' || raw === '') return { host: null, certain: false, reason: 'empty address' };
  if (/[\u0000-\u0020\u007f$`]/.test(raw))
    return { host: null, certain: false, reason: `cannot know the host of ${JSON.stringify(raw)}` };
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(raw)?.[1]?.toLowerCase();
  if (scheme !== undefined) {
    const rest = raw.slice(scheme.length + 3);
    const end = rest.search(/[/?#]/);
    let authority = end === -1 ? rest : rest.slice(0, end);
    // Userinfo ends at the LAST `@` of the authority (WHATWG and curl agree).
    const at = authority.lastIndexOf('@');
    if (at !== -1) authority = authority.slice(at + 1);
    const target = hostPort(authority, scheme);
    return target.certain && SPECIAL.has(scheme) ? agreeWithWhatwg(raw, target) : target;
  }
  // scp-like: [user@]host:path (no scheme, a colon before any slash). `C:\x` is a path, not a host.
  const scp = /^(?:[^@/]*@)?(\[[^\]]+\]|[^:/[\]]+):(?!\/\/)/.exec(raw);
  if (
    scp &&
    !/^[a-zA-Z]$/.test(scp[1] ?? '') &&
    defaultScheme !== undefined &&
    /^(ssh|scp|sftp|rsync|git\+ssh)$/.test(defaultScheme)
  ) {
    const host = normaliseHost(scp[1] as string);
    return host === null
      ? { host: null, certain: false, reason: `cannot know the host of ${JSON.stringify(raw)}` }
      : { scheme: defaultScheme, host, port: DEFAULT_PORTS[defaultScheme], certain: true };
  }
  let authority = raw;
  const slash = authority.indexOf('/');
  if (slash !== -1) authority = authority.slice(0, slash);
  const at = authority.lastIndexOf('@');
  if (at !== -1) authority = authority.slice(at + 1);
  return hostPort(authority, defaultScheme);
}

/** The schemes a WHATWG URL parser treats as special (`\\` is a `/` in them). */
const SPECIAL = new Set(['http', 'https', 'ws', 'wss', 'ftp']);

/**
 * curl ends the authority only at `/?#`; a WHATWG parser (Node's fetch, browsers, most MCP fetch servers) also
 * at `\\`, and skips tabs and newlines: `http://evil.example\\@ok.com/` goes to `ok.com` with curl and to
 * `evil.example` with fetch. One URL, two hosts: whoever judges it cannot know which client runs it, so a
 * disagreement is uncertain (never the allowed one of the two).
 */
function agreeWithWhatwg(raw: string, target: NetTarget): NetTarget {
  let other: string | null = null;
  try {
    const url = new URL(raw);
    other = normaliseHost(url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname);
  } catch {
    other = null;
  }
  if (other === target.host) return target;
  return {
    host: null,
    certain: false,
    reason: `clients disagree where ${JSON.stringify(raw)} goes (curl: ${target.host}, a WHATWG client such as fetch: ${other ?? 'no host'})`,
  };
}

function hostPort(authority: string, scheme: string | undefined): NetTarget {
  let hostPart = authority;
  let portPart: string | undefined;
  if (hostPart.startsWith('[')) {
    const close = hostPart.indexOf(']');
    if (close === -1)
      return { host: null, certain: false, reason: `malformed IPv6 host ${JSON.stringify(authority)}` };
    portPart = hostPart.slice(close + 1).startsWith(':') ? hostPart.slice(close + 2) : undefined;
    hostPart = hostPart.slice(0, close + 1);
  } else {
    const colon = hostPart.lastIndexOf(':');
    // More than one colon without brackets: a bare IPv6 address (no port can be told apart).
    if (colon !== -1 && hostPart.indexOf(':') === colon) {
      portPart = hostPart.slice(colon + 1);
      hostPart = hostPart.slice(0, colon);
    }
  }
  const host = normaliseHost(hostPart);
  if (host === null)
    return { host: null, certain: false, reason: `cannot know the host of ${JSON.stringify(authority)}` };
  let port: number | undefined = scheme !== undefined ? DEFAULT_PORTS[scheme] : undefined;
  if (portPart !== undefined && portPart !== '') {
    if (!/^\d{1,5}$/.test(portPart) || Number(portPart) > 65535)
      return { host: null, certain: false, reason: `invalid port ${JSON.stringify(portPart)}` };
    port = Number(portPart);
  }
  return {
    ...(scheme !== undefined ? { scheme } : {}),
    host,
    ...(port !== undefined ? { port } : {}),
    certain: true,
  };
}
