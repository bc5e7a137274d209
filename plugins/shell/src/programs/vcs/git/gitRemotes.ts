import { posix } from 'node:path';
import { type NetMethod, parseTarget } from '@toolgate/core';
import type { CommandContext, CommandHandler } from '../../../effects/extractTypes.js';
import type { Field } from '../../../state/expandWord.js';
import { has, parseArgs, values } from '../../argv.js';
import {
  hostOf,
  noProxyExempts,
  reachAddress,
  unknownHost,
  variableValue,
} from '../../network/reach/netReach.js';
import { reachOverSsh } from '../../network/reach/sshReach.js';
import { literal } from '../../spec.js';
import { commandLineConfig, composeDir, GLOBAL, locate } from './git.js';
import { type ConfigEntry, parseConfig } from './gitConfig.js';
import { optionSpec } from './optionSpec.js';
import { readBinaryBounded } from './readBinaryBounded.js';
import { SUBCOMMAND_OPTIONS } from './subcommandOptions.js';

// Where git connects (git-fetch(1) "GIT URLS" and "REMOTES", git-config(1) `url.<base>.insteadOf`,
// `pushInsteadOf`, `remote.<name>.url|pushurl|proxy`, `http.proxy`, git-submodule(1)): the URL an operand
// names, or the remote's URLs from the configuration git reads — the system file, the global ones, the
// repository's `.git/config` (found from the cwd, `-C`, `--git-dir`), `GIT_CONFIG_COUNT`/`KEY_n`/`VALUE_n`,
// `-c` — each rewritten by the longest matching `insteadOf`. Push writes, the rest reads. Local paths and
// `file://` are no network. A remote that cannot be determined is an uncertain reach.

/** Subcommands that connect, and how (`remote`/`submodule` by action). */
const NETWORK_SUBS = new Set([
  'clone',
  'fetch',
  'pull',
  'push',
  'ls-remote',
  'remote',
  'submodule',
  'archive',
]);

interface GitNet {
  entries: ConfigEntry[];
  /** Why the configuration is not known (an unreadable file, `GIT_CONFIG_PARAMETERS`…). */
  unknown?: string;
  /** Which file each remote's url came from, for the origin (`git:.git/config`). */
  where: Map<string, string>;
}

function readGitConfig(cx: CommandContext, path: string, into: GitNet, label: string, depth = 0): void {
  const r = cx.readContent(literal(path), 256 * 1024);
  if ('uncertain' in r) {
    if (!/: (ENOENT|ENOTDIR)$/.test(r.uncertain)) into.unknown ??= `${path}: ${r.uncertain}`;
    return;
  }
  for (const e of parseConfig(r.text)) {
    if (e.key === 'include.path' || /^includeif\..*\.path$/.test(e.key)) {
      if (depth >= 4) {
        into.unknown ??= `${path} includes too deeply`;
        continue;
      }
      const home = cx.variable('HOME');
      const inc =
        e.value.startsWith('~/') && typeof home === 'string' ? `${home}/${e.value.slice(2)}` : e.value;
      if (inc.startsWith('~')) {
        into.unknown ??= `${path} includes ${e.value}`;
        continue;
      }
      const file = posix.resolve(posix.dirname(path), inc);
      if (e.key === 'include.path') readGitConfig(cx, file, into, label, depth + 1);
      else {
        // A conditional include: whether it applies is not evaluated; if it could change where git
        // connects, the remote is not known.
        const probe: GitNet = { entries: [], where: new Map() };
        readGitConfig(cx, file, probe, label, depth + 1);
        if (probe.entries.some((x) => /^(url|remote|http)\./.test(x.key)))
          into.unknown ??= `${file} (includeIf) may rewrite remotes`;
      }
      continue;
    }
    into.entries.push(e);
    if (/^remote\..*\.(url|pushurl)$/.test(e.key)) into.where.set(e.key, label);
  }
}

/** Every configuration file git reads, in order (git-config(1) FILES), plus the environment's and `-c`'s. */
function gitConfiguration(cx: CommandContext, commonDir: string | null, cli: readonly ConfigEntry[]): GitNet {
  const net: GitNet = { entries: [], where: new Map() };
  const nosystem = variableValue(cx, 'GIT_CONFIG_NOSYSTEM');
  const system = variableValue(cx, 'GIT_CONFIG_SYSTEM');
  if (nosystem === null || system === null) net.unknown ??= 'GIT_CONFIG_SYSTEM/NOSYSTEM is not known';
  else if (nosystem === undefined) readGitConfig(cx, system ?? '/etc/gitconfig', net, 'git:gitconfig');
  const global = variableValue(cx, 'GIT_CONFIG_GLOBAL');
  const home = variableValue(cx, 'HOME');
  const xdg = variableValue(cx, 'XDG_CONFIG_HOME');
  if (global === null || home === null || xdg === null)
    net.unknown ??= 'where the global git config is, is not known';
  else if (global !== undefined) readGitConfig(cx, global, net, 'git:gitconfig');
  else {
    const x = xdg ?? (home !== undefined ? `${home}/.config` : undefined);
    if (x !== undefined) readGitConfig(cx, `${x}/git/config`, net, 'git:gitconfig');
    if (home !== undefined) readGitConfig(cx, `${home}/.gitconfig`, net, 'git:~/.gitconfig');
  }
  if (commonDir !== null) readGitConfig(cx, `${commonDir}/config`, net, 'git:.git/config');
  const count = variableValue(cx, 'GIT_CONFIG_COUNT');
  if (count === null || (count !== undefined && !/^\d+$/.test(count)))
    net.unknown ??= 'GIT_CONFIG_COUNT is not known';
  else
    for (let k = 0; k < Number(count ?? 0) && k < 64; k++) {
      const key = variableValue(cx, `GIT_CONFIG_KEY_${k}`);
      const value = variableValue(cx, `GIT_CONFIG_VALUE_${k}`);
      if (typeof key !== 'string' || value === null) {
        net.unknown ??= `GIT_CONFIG_KEY_${k} is not known`;
        continue;
      }
      net.entries.push(normalisedEntry(key, value ?? ''));
    }
  if (variableValue(cx, 'GIT_CONFIG_PARAMETERS') !== undefined)
    net.unknown ??= 'GIT_CONFIG_PARAMETERS sets configuration';
  for (const e of cli) net.entries.push(normalisedEntry(e.key, e.value));
  return net;
}

/** `url.<base>.insteadof` keeps `<base>` as written; section and name lower-cased (as parseConfig does). */
function normalisedEntry(key: string, value: string): ConfigEntry {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  if (first === -1 || first === last) return { key: key.toLowerCase(), value };
  return {
    key: `${key.slice(0, first).toLowerCase()}.${key.slice(first + 1, last)}.${key.slice(last + 1).toLowerCase()}`,
    value,
  };
}

function all(net: GitNet, key: string): string[] {
  return net.entries.filter((e) => e.key === key).map((e) => e.value);
}
function last(net: GitNet, key: string): string | undefined {
  return all(net, key).at(-1);
}

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
function isUrl(v: string): boolean {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v)) return true;
  const colon = v.indexOf(':');
  const slash = v.indexOf('/');
  return colon > 0 && (slash === -1 || colon < slash);
}

/** Reports one URL git connects to, after rewriting (`file://` and local paths: none). */
function reachUrl(
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

/** The branch HEAD names (`ref: refs/heads/X`), for its `branch.X.remote`. */
function currentBranch(gitDir: string): string | undefined {
  const head = readBinaryBounded(`${gitDir}/HEAD`, 4096)?.toString('utf8');
  return head ? /^ref: refs\/heads\/(.+?)\s*$/.exec(head)?.[1] : undefined;
}

/** The URLs of a remote name (push: `pushurl`s if any), or a URL/path operand as it is. */
function remoteUrls(cx: CommandContext, net: GitNet, name: Field, method: NetMethod, sub: string): void {
  if (name.uncertain !== undefined) {
    unknownHost(cx, name.raw, { method }, `git ${sub}: the remote is not known`);
    return;
  }
  const push = method === 'write';
  const urls = all(net, `remote.${name.value}.url`);
  const pushUrls = push ? all(net, `remote.${name.value}.pushurl`) : [];
  if (urls.length === 0 && pushUrls.length === 0) {
    const group = all(net, `remotes.${name.value}`)
      .flatMap((g) => g.split(/\s+/))
      .filter((g) => g !== '');
    if (group.length > 0 && !push) {
      for (const g of group) remoteUrls(cx, net, literal(g), method, sub);
      return;
    }
    if (isUrl(name.value)) reachUrl(cx, net, name.value, method, 'git');
    else if (!name.value.includes('/') && !name.value.startsWith('.'))
      unknownHost(
        cx,
        name.value,
        { method },
        `git ${sub}: no remote ${name.value} is configured${net.unknown ? ` (${net.unknown})` : ''}`,
      );
    return;
  }
  const list = pushUrls.length > 0 ? pushUrls : urls;
  const origin =
    net.where.get(`remote.${name.value}.${pushUrls.length > 0 ? 'pushurl' : 'url'}`) ?? 'git:config';
  for (const u of list) reachUrl(cx, net, u, method, origin, pushUrls.length > 0);
}

/** The remote a subcommand without a repository operand uses (git-fetch(1), git-push(1) "remote.pushDefault"). */
function defaultRemote(net: GitNet, branch: string | undefined, push: boolean): string {
  const b = branch !== undefined ? branch : '';
  return (
    (push ? (last(net, `branch.${b}.pushremote`) ?? last(net, 'remote.pushdefault')) : undefined) ??
    last(net, `branch.${b}.remote`) ??
    'origin'
  );
}

function allRemotes(net: GitNet): string[] {
  const names = new Set<string>();
  for (const e of net.entries) {
    const m = /^remote\.(.*)\.url$/s.exec(e.key);
    if (m) names.add(m[1]!);
  }
  return [...names];
}

/**
 * git: where clone, fetch, pull, push, ls-remote, `remote update|show|add -f`, `submodule update|add|sync`
 * and `archive --remote` connect. See the file's header.
 */
export const gitReach: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, GLOBAL);
  const [subField, ...rest] = p.operands;
  if (subField === undefined || subField.uncertain !== undefined || !NETWORK_SUBS.has(subField.value)) return;
  const sub = subField.value;
  const cli = commandLineConfig(cx, p);
  const base = composeDir(values(p, '-C'));
  const at = (f: Field): Field =>
    f.value.startsWith('/') || f.tilde || f.uncertain !== undefined || base.value === '.'
      ? f
      : { ...f, value: `${base.value}/${f.value}` };
  if (sub === 'clone') {
    const cp = parseArgs(rest, optionSpec(SUBCOMMAND_OPTIONS.clone!));
    const extra = values(cp, '-c', '--config').map((c) => {
      const eq = c.value.indexOf('=');
      return {
        key: c.value.slice(0, eq < 0 ? undefined : eq),
        value: eq < 0 ? 'true' : c.value.slice(eq + 1),
      };
    });
    const net = gitConfiguration(cx, null, [...cli, ...extra]);
    const src = cp.operands[0];
    if (!src) return;
    if (src.uncertain !== undefined || net.unknown !== undefined) {
      unknownHost(cx, src.raw, { method: 'read' }, `git clone: ${src.uncertain ?? net.unknown}`);
      return;
    }
    reachUrl(cx, net, src.value, 'read', 'git');
    if (has(cp, '--recurse-submodules', '--recursive'))
      unknownHost(
        cx,
        src.value,
        { method: 'read', origin: 'git:.gitmodules' },
        'git clone --recurse-submodules: the submodules come with the clone',
      );
    return;
  }
  const baseReal = cx.resolveDir(base);
  if (baseReal === null) {
    unknownHost(cx, sub, { method: 'write' }, `git ${sub}: the repository's directory is not known`);
    return;
  }
  const repo = locate(cx, p, baseReal, at);
  if (repo === null) {
    unknownHost(cx, sub, { method: 'write' }, `git ${sub}: the repository is not known`);
    return;
  }
  const common = readBinaryBounded(`${repo.gitDir}/commondir`, 4096);
  const commonDir =
    common !== null ? posix.resolve(repo.gitDir, common.toString('utf8').trim()) : repo.gitDir;
  const net = gitConfiguration(cx, repo.missing ? null : commonDir, cli);
  const method: NetMethod = sub === 'push' ? 'write' : 'read';
  if (net.unknown !== undefined) {
    unknownHost(cx, sub, { method }, `git ${sub}: ${net.unknown}`);
    return;
  }
  const { action, args } =
    sub === 'remote' || sub === 'submodule' ? splitAction(rest) : { action: '', args: rest };
  const spec = SUBCOMMAND_OPTIONS[`${sub} ${action}`] ?? SUBCOMMAND_OPTIONS[sub] ?? '-';
  const sp = parseArgs(args, optionSpec(spec));
  const branch = currentBranch(repo.gitDir);
  if (sub === 'archive') {
    for (const r of values(sp, '--remote')) remoteUrls(cx, net, r, 'read', sub);
    return;
  }
  if (sub === 'remote') {
    if (action === 'update')
      for (const r of sp.operands.length > 0 ? sp.operands : allRemotes(net).map(literal))
        remoteUrls(cx, net, r, 'read', sub);
    else if (action === 'show' && !has(sp, '-n'))
      for (const r of sp.operands) remoteUrls(cx, net, r, 'read', sub);
    else if (action === 'prune') for (const r of sp.operands) remoteUrls(cx, net, r, 'read', sub);
    else if (action === 'add' && has(sp, '-f', '--fetch') && sp.operands[1])
      reachUrl(cx, net, sp.operands[1].value, 'read', 'git');
    return;
  }
  if (sub === 'submodule') {
    if (action === 'update' || action === 'add' || action === '')
      submodules(cx, net, repo.worktree, action, sp.operands, branch);
    return;
  }
  if (has(sp, '--all') && sub !== 'push') {
    for (const r of allRemotes(net)) remoteUrls(cx, net, literal(r), method, sub);
    return;
  }
  const first = sp.operands[0];
  if (has(sp, '--multiple')) {
    for (const r of sp.operands) remoteUrls(cx, net, r, method, sub);
    return;
  }
  remoteUrls(cx, net, first ?? literal(defaultRemote(net, branch, method === 'write')), method, sub);
};

function splitAction(rest: readonly Field[]): { action: string; args: readonly Field[] } {
  const first = rest[0];
  if (first === undefined || first.value.startsWith('-')) return { action: '', args: rest };
  return { action: first.value, args: rest.slice(1) };
}

/** `submodule update`/`add`: URLs from `.git/config` (`submodule.<name>.url`) or `.gitmodules`; relative ones against the default remote. */
function submodules(
  cx: CommandContext,
  net: GitNet,
  worktree: string | null,
  action: string,
  ops: readonly Field[],
  branch: string | undefined,
): void {
  if (action === '') return; // `git submodule` lists
  const superUrl = all(net, `remote.${defaultRemote(net, branch, false)}.url`).at(-1);
  const resolve = (u: string): string | undefined => {
    if (!/^\.\.?\//.test(u)) return u;
    if (superUrl === undefined) return undefined;
    let b = superUrl.replace(/\/+$/, '');
    let rel = u;
    while (rel.startsWith('../') || rel.startsWith('./')) {
      if (rel.startsWith('../')) b = b.replace(/[/:][^/:]*$/, (m) => (m.startsWith(':') ? ':' : ''));
      rel = rel.replace(/^\.\.?\//, '');
    }
    return `${b.replace(/:$/, ':')}${b.endsWith(':') ? '' : '/'}${rel}`;
  };
  if (action === 'add') {
    const url = ops[0];
    if (!url) return;
    if (url.uncertain !== undefined)
      unknownHost(cx, url.raw, { method: 'read' }, 'git submodule add: the URL is not known');
    else {
      const r = resolve(url.value);
      if (r === undefined)
        unknownHost(
          cx,
          url.value,
          { method: 'read', origin: 'git:.gitmodules' },
          'git submodule add: a relative URL without a remote',
        );
      else reachUrl(cx, net, r, 'read', 'git');
    }
    return;
  }
  if (worktree === null) return;
  const gm = cx.readContent(literal(`${worktree}/.gitmodules`), 256 * 1024);
  if ('uncertain' in gm) {
    if (!/: (ENOENT|ENOTDIR)$/.test(gm.uncertain))
      unknownHost(
        cx,
        '.gitmodules',
        { method: 'read', origin: 'git:.gitmodules' },
        `git submodule: ${gm.uncertain}`,
      );
    return;
  }
  const modules = parseConfig(gm.text);
  for (const e of modules) {
    const m = /^submodule\.(.*)\.url$/s.exec(e.key);
    if (!m) continue;
    const configured = all(net, `submodule.${m[1]}.url`).at(-1);
    const url = resolve(configured ?? e.value);
    const origin = configured !== undefined ? 'git:.git/config' : 'git:.gitmodules';
    if (url === undefined)
      unknownHost(cx, e.value, { method: 'read', origin }, 'git submodule: a relative URL without a remote');
    else reachUrl(cx, net, url, 'read', origin);
  }
}
