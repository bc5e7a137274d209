import type { NetMethod } from '@toolgate/core';
import { parseTarget } from '@toolgate/core';
import type { CommandContext } from '../../../effects/extractTypes.js';
import {
  hostOf,
  noProxyExempts,
  reachAddress,
  unknownHost,
  variableValue,
} from '../../network/reach/netReach.js';
import { reachOverSsh } from '../../network/reach/sshReach.js';
import { type GitNet, last } from './gitNetConfig.js';

// One git URL as git connects to it (git-fetch(1) "GIT URLS", git-config(1) `url.<base>.insteadOf`,
// `pushInsteadOf`, `http.proxy`, `http.curloptResolve`, `core.sshCommand`, `core.gitProxy`).

/** The longest `url.<base>.<kind>` prefix of `url` rewritten to its base (git's url_rewrite), if any. */
function rewrite(net: GitNet, url: string, kind: 'insteadof' | 'pushinsteadof'): string | undefined {
  let best: { from: string; base: string } | undefined;
  for (const e of net.entries) {
    const m = /^url\.(.*)\.(insteadof|pushinsteadof)$/s.exec(e.key);
    if (!m || m[2] !== kind || !url.startsWith(e.value)) continue;
    if (!best || e.value.length > best.from.length) best = { from: e.value, base: m[1]! };
  }
  return best ? best.base + url.slice(best.from.length) : undefined;
}

/** A URL as git rewrites it before connecting (fetch: insteadOf; push: pushInsteadOf, else insteadOf). */
function rewritten(net: GitNet, url: string, push: boolean, explicitPushUrl: boolean): string {
  if (push && !explicitPushUrl) {
    const p = rewrite(net, url, 'pushinsteadof');
    if (p !== undefined) return p;
  }
  return rewrite(net, url, 'insteadof') ?? url;
}

/** A URL rather than a local path (git-fetch(1) "GIT URLS": scp-like needs a `:` before any `/`). */
export function isUrl(v: string): boolean {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v)) return true;
  const colon = v.indexOf(':');
  const slash = v.indexOf('/');
  return colon > 0 && (slash === -1 || colon < slash);
}

/** Reports one URL git connects to, after rewriting (`file://` and local paths: none). */
export function reachUrl(
  cx: CommandContext,
  net: GitNet,
  url: string,
  method: NetMethod,
  origin: string,
  explicitPush = false,
): void {
  const u = rewritten(net, url, method === 'write', explicitPush);
  if (!isUrl(u)) return;
  const rewrittenFrom = u !== url ? `rewritten from ${url} by url.*.insteadOf` : undefined;
  const why = rewrittenFrom !== undefined ? { reason: rewrittenFrom } : {};
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(u)?.[1]?.toLowerCase();
  if (scheme === 'file') return;
  if (
    /^[a-z][a-z0-9+.-]*::/i.test(u) ||
    (scheme !== undefined && !/^(https?|ssh|git|git\+ssh|ssh\+git|ftps?)$/.test(scheme))
  ) {
    unknownHost(cx, u, { method, origin }, `git: the transport of ${u} is a program (remote helper)`);
    return;
  }
  if (scheme === undefined || scheme === 'ssh' || scheme === 'git+ssh' || scheme === 'ssh+git') {
    // ssh transport: ssh's config decides the real host (`Host github-work` → `HostName github.com`).
    const m =
      scheme === undefined
        ? /^((?:[^@/]*@)?(?:\[[^\]]+\]|[^:/]+)):/.exec(u)
        : /^[a-z+]+:\/\/((?:[^@/]*@)?(?:\[[^\]]+\]|[^:/]+))(?::(\d+))?/i.exec(u);
    if (!m) {
      unknownHost(cx, u, { method, origin }, `git: cannot read the host of ${u}`);
      return;
    }
    // GIT_SSH_COMMAND, else GIT_SSH (a program run with the host as argument), else core.sshCommand: an
    // ssh with plain options is followed as ssh; anything else makes the connection itself (uncertain).
    const command = variableValue(cx, 'GIT_SSH_COMMAND');
    const program = command === undefined ? variableValue(cx, 'GIT_SSH') : undefined;
    const sshCommand = command ?? program ?? last(net, 'core.sshcommand');
    if (sshCommand === null) {
      unknownHost(cx, u, { method, origin }, 'git: GIT_SSH_COMMAND/GIT_SSH is not known');
      return;
    }
    reachOverSsh(
      cx,
      m[1]!.replace(/^\[(.*)\]$/, '$1'),
      m[2] !== undefined ? Number(m[2]) : undefined,
      method,
      origin,
      sshCommand,
    );
    return;
  }
  if (scheme === 'git') {
    // git:// through a proxy program (git-config(1) core.gitProxy, GIT_PROXY_COMMAND).
    const gitProxy = variableValue(cx, 'GIT_PROXY_COMMAND') ?? last(net, 'core.gitproxy');
    if (gitProxy !== undefined) {
      unknownHost(cx, u, { method, origin }, 'git: core.gitProxy/GIT_PROXY_COMMAND makes the connection');
      return;
    }
  }
  reachAddress(cx, u, { method, origin, ...why });
  if (scheme === 'http' || scheme === 'https') {
    proxy(cx, net, u, scheme, method);
    pinnedAddresses(cx, net, u, scheme, method);
  }
}

/**
 * `http.curloptResolve` (git-config(1), git 2.37+): curl's `--resolve HOST:PORT:ADDR` — the address git
 * really connects to for that host and port.
 */
function pinnedAddresses(
  cx: CommandContext,
  net: GitNet,
  url: string,
  scheme: string,
  method: NetMethod,
): void {
  const t = parseTarget(url, scheme);
  for (const e of net.entries) {
    if (!/^http\.(.*\.)?curloptresolve$/.test(e.key)) continue;
    const m = /^[+-]?([^:]+):(\d+|\*):(.+)$/.exec(e.value);
    if (!m) {
      unknownHost(
        cx,
        e.value,
        { method, origin: 'git:resolve' },
        `git: http.curloptResolve ${e.value} is not understood`,
      );
      continue;
    }
    if ((m[1] !== '*' && m[1]!.toLowerCase() !== t.host) || (m[2] !== '*' && Number(m[2]) !== t.port))
      continue;
    for (const addr of m[3]!.split(',')) {
      const ip = addr.replace(/^\[(.*)\]$/, '$1');
      reachAddress(cx, ip.includes(':') ? `[${ip}]` : ip, {
        method,
        scheme,
        ...(t.port !== undefined ? { port: t.port } : {}),
        origin: 'git:resolve',
        reason: `http.curloptResolve ${e.value}: ${url} connects to this address`,
      });
    }
  }
}

/** `http.proxy` (or the remote's `proxy`), else libcurl's variables (`https_proxy`, `ALL_PROXY`…). */
function proxy(cx: CommandContext, net: GitNet, url: string, scheme: string, method: NetMethod): void {
  const host = hostOf(url, scheme);
  if (host === undefined) return;
  const noProxy = variableValue(cx, 'no_proxy') ?? variableValue(cx, 'NO_PROXY');
  if (typeof noProxy === 'string' && noProxyExempts(noProxy, host)) return;
  const configured = net.entries
    .filter((e) => /^http\.(.*\.)?proxy$/.test(e.key) || /^remote\..*\.proxy$/.test(e.key))
    .at(-1);
  let value: string | null | undefined = configured?.value;
  let from = configured?.key;
  if (value === undefined) {
    for (const name of [
      `${scheme}_proxy`,
      ...(scheme !== 'http' ? [`${scheme.toUpperCase()}_PROXY`] : []),
      'all_proxy',
      'ALL_PROXY',
    ]) {
      const v = variableValue(cx, name);
      if (v !== undefined) {
        value = v;
        from = `$${name}`;
        break;
      }
    }
  }
  if (value === null)
    unknownHost(
      cx,
      `$${scheme}_proxy`,
      { method, origin: 'git:proxy' },
      'git: a proxy variable is not known',
    );
  else if (value !== undefined && value !== '')
    reachAddress(cx, value, {
      method,
      scheme: 'http',
      port: 1080,
      origin: 'git:proxy',
      reason: `git sends ${url} through ${from}`,
    });
}
