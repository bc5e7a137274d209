import { existsSync, lstatSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import type { Access, CallContext, Finding } from '@toolgate/core';
import { isWithin, resolvePath } from '@toolgate/core';
import type { CompiledPolicy } from './types.js';

/**
 * What toolgate itself trusts on disk, read-only to the agent whatever the policy says (both layers: the
 * static check denies writing them, the sandbox mounts them read-only). An agent that could rewrite one of
 * them switches the guard off for every later call: the policy it is judged by, the compiled policies and code
 * the next toolgate process loads from its cache, the hook settings that make an assistant ask toolgate at
 * all (a hook planted there runs outside any sandbox).
 */
export interface GuardPaths {
  /** Files: the policy files in use and every assistant's hook settings, project and user level. */
  files: string[];
  /** Directories read-only with everything beneath: toolgate's cache, its user config, a project's `.toolgate`. */
  dirs: string[];
  /**
   * Directories that hold hook settings (`.claude`, `.gemini`, project and user level). The sandbox mounts each
   * read-only itself, so no new name can appear in it (`settings.local.json` created, or a fresh directory
   * renamed into place), and binds its writable entries back (`.claude/commands/` stays editable).
   */
  sealed: string[];
  /**
   * toolgate's cache directory, when one is configured. Its `hookd-*` entries are the hook server's spools
   * (its runtime directories): invisible inside the sandbox, never read by the agent.
   */
  cache?: string;
}

/** The names of toolgate's runtime (hook server spool) directories inside its cache directory. */
export const RUNTIME_PREFIX = 'hookd-';
/** `/hookd-`: a path component starting with the runtime prefix (built once, not per read). */
const RUNTIME_DIR_MARK = `/${RUNTIME_PREFIX}`;

/** toolgate's cache directory as the CLI finds it (`TOOLGATE_CACHE_DIR`, `$XDG_CACHE_HOME/toolgate`, `~/.cache/toolgate`). */
function cacheDirOf(env: Readonly<Record<string, string | undefined>>, home: string): string | undefined {
  if (env.TOOLGATE_CACHE_DIR && isAbsolute(env.TOOLGATE_CACHE_DIR)) return env.TOOLGATE_CACHE_DIR;
  if (env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME)) return join(env.XDG_CACHE_HOME, 'toolgate');
  return isAbsolute(home) ? join(home, '.cache', 'toolgate') : undefined;
}

/** `$XDG_CONFIG_HOME/toolgate`, else `~/.config/toolgate`: where the user's policy lives. */
function configDirOf(env: Readonly<Record<string, string | undefined>>, home: string): string | undefined {
  if (env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME)) return join(env.XDG_CONFIG_HOME, 'toolgate');
  return isAbsolute(home) ? join(home, '.config', 'toolgate') : undefined;
}

/** The assistants toolgate installs into, and the hook settings each reads (project and user level). */
const ASSISTANT_SETTINGS: ReadonlyArray<{ dir: string; files: readonly string[] }> = [
  { dir: '.claude', files: ['settings.json', 'settings.local.json'] },
  { dir: '.gemini', files: ['settings.json'] },
];

/**
 * The guard paths of one context (lexical: `~`, workspace and environment expanded, links not resolved).
 *
 * @example
 * ```ts
 * guardPathsOf(policy, { workspace: '/srv/ws', home: '/home/u', env: {} }).files;
 * // ['/srv/ws/toolgate.yaml', '/srv/ws/.claude/settings.json', …, '/home/u/.gemini/settings.json']
 * ```
 */
export function guardPathsOf(
  policy: Pick<CompiledPolicy, 'sources'>,
  ctx: Pick<CallContext, 'workspace' | 'home' | 'env'>,
): GuardPaths {
  const env = ctx.env ?? {};
  const files = policy.sources.map((s) => s.replace(/#.*$/, '')).filter((s) => isAbsolute(s));
  const sealed: string[] = [];
  for (const root of [ctx.workspace, ctx.home]) {
    if (!isAbsolute(root)) continue;
    for (const a of ASSISTANT_SETTINGS) {
      sealed.push(join(root, a.dir));
      for (const f of a.files) files.push(join(root, a.dir, f));
    }
  }
  const cache = cacheDirOf(env, ctx.home);
  const config = configDirOf(env, ctx.home);
  const dirs = [
    ...(cache ? [cache] : []),
    ...(config ? [config] : []),
    ...(isAbsolute(ctx.workspace) ? [join(ctx.workspace, '.toolgate')] : []),
  ];
  return { files: [...new Set(files)], dirs, sealed, ...(cache ? { cache } : {}) };
}

// The lexical guard list of a context (names only, no I/O) is the same for every call of that context:
// built once per policy and context. What the names resolve to is looked up on every call (below).
const lexicalCache = new WeakMap<object, Map<string, GuardPaths>>();
const LEXICAL_MAX = 256;

function lexicalGuards(
  policy: Pick<CompiledPolicy, 'sources'>,
  ctx: Pick<CallContext, 'workspace' | 'home' | 'env'>,
): GuardPaths {
  const env = ctx.env ?? {};
  const key = `${ctx.workspace}\0${ctx.home}\0${env.TOOLGATE_CACHE_DIR ?? ''}\0${env.XDG_CACHE_HOME ?? ''}\0${env.XDG_CONFIG_HOME ?? ''}`;
  let byContext = lexicalCache.get(policy);
  if (byContext === undefined) {
    byContext = new Map();
    lexicalCache.set(policy, byContext);
  }
  let g = byContext.get(key);
  if (g === undefined) {
    g = guardPathsOf(policy, ctx);
    if (byContext.size >= LEXICAL_MAX) byContext.delete(byContext.keys().next().value as string);
    byContext.set(key, g);
  }
  return g;
}

/**
 * A path with its links resolved (the nearest existing ancestor's real path plus the rest), memoised within one
 * judgement: the guard paths share their ancestors, and `existsSync` walks up without throwing.
 */
function realFormer(): (path: string) => string {
  const memo = new Map<string, string>();
  const real = (path: string): string => {
    let r = memo.get(path);
    if (r !== undefined) return r;
    if (existsSync(path)) {
      try {
        r = realpathSync.native(path);
      } catch {
        r = path;
      }
    } else {
      const up = dirname(path);
      r = up === path ? path : join(real(up), basename(path));
    }
    memo.set(path, r);
    return r;
  };
  return real;
}

/**
 * The real forms of the guard paths for one call. Every answer is looked up afresh in each call (a link can
 * be created or changed between two calls: a remembered answer would be a bypass); within the call the
 * directories the guard paths share are looked up once.
 *
 * Fewer syscalls than a realpath(3) per guard path: the directories above the paths this call already
 * resolved to themselves (no link on the way: `access.realPath === access.path`) are known to be real, so
 * each guard path costs one lstat per component beneath them (the workspace's `.claude`, then
 * `settings.json`), and a missing component ends its lookup. Only a component that is a link sends the
 * guard path to core's resolver (the kernel's semantics: a dangling link resolves to where its target
 * would be created).
 */
class GuardReals {
  /** Lexical directory ⇒ its real form (no link on its way), or null when it does not exist. */
  private readonly dirs = new Map<string, string | null>();
  private fallback: ((path: string) => string) | undefined;

  constructor(
    /** Paths this call resolved to themselves: every directory above them is real (or missing). */
    private readonly proven: readonly string[],
    private readonly ctx: Pick<CallContext, 'workspace' | 'home'>,
  ) {}

  /** The real form of an absolute, normalised guard path. */
  real(path: string): string {
    let start = 0;
    for (const p of this.proven) start = Math.max(start, sharedDirs(p, path));
    // `path.slice(0, start)` is a real directory (or `/`): walk the components after it.
    let cur = start === 0 ? '' : path.slice(0, start);
    let realCur = cur;
    let i = start + 1;
    while (i <= path.length) {
      const slash = path.indexOf('/', i);
      const end = slash === -1 ? path.length : slash;
      const next = path.slice(0, end);
      let known = this.dirs.get(next);
      if (known === undefined) {
        const kind = lstatKind(next);
        if (kind === 'link') return this.throughLink(path);
        known = kind === 'missing' ? null : `${realCur}/${path.slice(i, end)}`;
        // Only directories are remembered (a guard path's own last component is looked up once anyway).
        if (end < path.length) this.dirs.set(next, known);
      }
      if (known === null) return `${realCur}${path.slice(cur.length)}`; // missing: the rest is created as named
      cur = next;
      realCur = known;
      i = end + 1;
    }
    return realCur;
  }

  /** A guard path with a link on its way: core's resolver follows it as the kernel would. */
  private throughLink(path: string): string {
    const r = resolvePath(
      path,
      { cwd: '/', workspace: this.ctx.workspace, home: this.ctx.home, env: {} },
      {
        tilde: false,
        vars: false,
      },
    );
    if (r.real !== null) return r.real;
    // A loop or an unreadable link: what the earlier check answered (the nearest existing ancestor's real form).
    this.fallback ??= realFormer();
    return this.fallback(path);
  }
}

/**
 * How much of `path` lies in directories above `proven` (a path this call resolved to itself): the length of
 * their longest shared directory, 0 when they share only `/`.
 */
function sharedDirs(proven: string, path: string): number {
  const parentEnd = proven.lastIndexOf('/');
  let shared = 0;
  for (let i = 1; i <= parentEnd; i++) {
    const c = proven.charCodeAt(i);
    if (c === 47 /* '/' */) {
      // Every character before matched: `proven.slice(0, i)` is a directory above both when `path` goes on there.
      if (path.charCodeAt(i) !== 47) break;
      shared = i;
    } else if (c !== path.charCodeAt(i)) break;
  }
  return shared;
}

/** What a name is, without following a link in its last component. A failure to look is taken as missing. */
function lstatKind(path: string): 'link' | 'missing' | 'present' {
  try {
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (st === undefined) return 'missing';
    return st.isSymbolicLink() ? 'link' : 'present';
  } catch {
    return 'missing'; // ENOTDIR (a file above it), EACCES: as existsSync answered before
  }
}

const exists = (path: string) => existsSync(path);

// macOS and Windows filesystems ignore case by default: there `.CLAUDE/settings.json` is the hook settings.
const FOLD = process.platform === 'darwin' || process.platform === 'win32';
const fold = (p: string) => (FOLD ? p.toLowerCase() : p);
const within = (p: string, root: string) => isWithin(fold(p), fold(root));

/**
 * The built-in guard-files stage of the static check: a write to a guard path (or a subtree write that
 * would remove or move one that exists: `rm -r .claude`, `mv ~/.cache x`), or a read inside toolgate's
 * runtime directories, is denied whatever the policy's rules say. Runs before the rules, so no rule can
 * allow it; the sandbox enforces the same list with its mounts.
 */
export function guardFinding(
  accesses: readonly Access[],
  policy: Pick<CompiledPolicy, 'sources'>,
  ctx: Pick<CallContext, 'workspace' | 'home' | 'env'> & Partial<Pick<CallContext, 'cwd'>>,
): Finding | undefined {
  let guard: { path: string; dir: boolean }[] | undefined;
  for (const access of accesses) {
    if (!access.certain || (access.op !== 'write' && access.op !== 'read')) continue;
    if (access.op === 'read') {
      // Only a path naming a spool directory (`…/hookd-…`) can be inside one: others cost no syscall.
      if (!access.path.includes(RUNTIME_DIR_MARK) && !access.realPath?.includes(RUNTIME_DIR_MARK)) continue;
      const c = cacheDirOf(ctx.env ?? {}, ctx.home);
      const root = c === undefined ? undefined : realFormer()(c);
      if (
        root !== undefined &&
        [access.path, access.realPath].some(
          (f) =>
            f !== null &&
            within(f, root) &&
            f !== root &&
            basename(relativeHead(f, root)).startsWith(RUNTIME_PREFIX),
        )
      )
        return deny(access, "it is inside toolgate's runtime directory (the hook server's spool)");
      continue;
    }
    // Built for the first write of the call, each guard path resolved afresh (links change between calls).
    guard ??= guardList(accesses, policy, ctx);
    const forms =
      access.realPath !== null && access.realPath !== access.path
        ? [access.path, access.realPath]
        : [access.path];
    for (const g of guard) {
      const hit = forms.some(
        (f) =>
          (g.dir ? within(f, g.path) : fold(f) === fold(g.path)) ||
          (within(g.path, f) && carries(access, f, ctx) && exists(g.path)),
      );
      if (hit)
        return deny(
          access,
          `${g.path} is ${g.dir ? "toolgate's own directory" : "a file toolgate trusts (its policy or an assistant's hook settings)"}: read-only to the agent whatever the policy says`,
        );
    }
    const planted = forms.find((f) => isProjectPolicyName(f, ctx));
    if (planted !== undefined)
      return deny(
        access,
        `${planted} is where toolgate looks for a project policy (in the workspace, the working directory or above): a policy written there would decide later calls`,
      );
  }
  return undefined;
}

/** Every guard path of the context in its lexical and (this call's) real form. */
function guardList(
  accesses: readonly Access[],
  policy: Pick<CompiledPolicy, 'sources'>,
  ctx: Pick<CallContext, 'workspace' | 'home' | 'env'>,
): { path: string; dir: boolean }[] {
  const proven: string[] = [];
  for (const a of accesses)
    if (a.certain && a.realPath === a.path && a.path.charCodeAt(0) === 47) proven.push(a.path);
  const reals = new GuardReals(proven, ctx);
  const g = lexicalGuards(policy, ctx);
  const guard: { path: string; dir: boolean }[] = [];
  const add = (path: string, dir: boolean) => {
    guard.push({ path, dir });
    const real = reals.real(path);
    if (real !== path) guard.push({ path: real, dir });
  };
  for (const f of g.files) add(f, false);
  for (const d of g.dirs) add(d, true);
  return guard;
}

/**
 * Whether a write to `path`, a directory above a guard path, moves or removes the guard path with it: a
 * subtree write (`rm -r .claude`, `mv ~/.cache x`) or a write to the directory itself (a move tool's source).
 * Not for the workspace, the home directory and their ancestors: `find . -name '*.o' -delete` and `cp x
 * <workspace>` are everyday work, and inside the sandbox a mount point holds those files anyway.
 */
function carries(access: Access, path: string, ctx: Pick<CallContext, 'workspace' | 'home'>): boolean {
  if (within(ctx.workspace, path) || within(ctx.home, path)) return false;
  if (access.scope === 'subtree') return true;
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The names toolgate's policy discovery tries in each directory (the CLI's `PROJECT_POLICY_FILES`). */
const PROJECT_POLICY = /^toolgate\.(?:yaml|yml|json|toml)$/;

/**
 * Whether `path` is a name policy discovery would find from the workspace or the working directory: a
 * `toolgate.yaml` (…) or anything in a `.toolgate/` directory, in either of them or above. Lexical, no I/O: a
 * file that does not exist yet is the point (a project policy planted where a user policy was in use).
 */
function isProjectPolicyName(path: string, ctx: { workspace: string; cwd?: string }): boolean {
  const dir = dirname(path);
  const starts = ctx.cwd === undefined ? [ctx.workspace] : [ctx.workspace, ctx.cwd];
  if (PROJECT_POLICY.test(fold(basename(path)))) return starts.some((s) => within(s, dir));
  return basename(dir) === '.toolgate' && starts.some((s) => within(s, dirname(dir)));
}

/** The first component of `path` beneath `root` (`root/hookd-1/req` ⇒ `hookd-1`). */
function relativeHead(path: string, root: string): string {
  return path.slice(root.length + 1).split('/')[0] ?? '';
}

function deny(access: Access, why: string): Finding {
  return {
    action: 'deny',
    code: 'GUARD_FILE',
    reason: `${access.op === 'read' ? 'reading' : 'writing'} ${access.realPath ?? access.path} is refused: ${why}`,
    access,
    hint: 'Ask the user to make this change themselves; the guard never lets the agent change its own configuration.',
  };
}
