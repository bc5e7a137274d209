import { posix } from 'node:path';
import type { NetMethod } from '@toolgate/core';
import type { CommandContext, CommandHandler } from '../../../effects/extractTypes.js';
import type { Field } from '../../../state/expandWord.js';
import { has, parseArgs, values } from '../../argv.js';
import { unknownHost } from '../../network/reach/netReach.js';
import { literal } from '../../spec.js';
import { commandLineConfig, composeDir, GLOBAL, locate } from './git.js';
import { parseConfig } from './gitConfig.js';
import { all, type GitNet, gitConfiguration, last } from './gitNetConfig.js';
import { isUrl, reachUrl } from './gitUrlReach.js';
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
  // Which remote a command without one uses depends on the branch HEAD names and on its `branch.*` config:
  // an earlier command of the line may have switched branches (`git checkout other && git push` pushes to
  // other's remote) or set the upstream. git's other writes to its git dir leave HEAD naming the same branch.
  const branchMoved =
    net.branchesChanged === true || cx.writtenEarlier(literal(`${repo.gitDir}/HEAD`), ['git:git-dir']);
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
      submodules(cx, net, repo.worktree, action, sp.operands, branchMoved ? null : branch);
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
  if (first === undefined && branchMoved) {
    unknownHost(
      cx,
      sub,
      { method },
      `git ${sub}: the branch, and so the remote it uses, may be changed by an earlier command of the line`,
    );
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
  /** `null`: an earlier command of the line may have switched branches (the default remote is not known). */
  branch: string | undefined | null,
): void {
  if (action === '') return; // `git submodule` lists
  const superUrl =
    branch === null ? undefined : all(net, `remote.${defaultRemote(net, branch, false)}.url`).at(-1);
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
