import { lstatSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Access, CallContext, Op } from '@toolgate/core';
import { isWithin } from '@toolgate/core';
import { type CompiledPolicy, type Evaluator, evaluatorFor, guardPathsOf } from '@toolgate/folder-rules';
import { caseVariants, type Listings } from './caseVariants.js';
import { type GlobTarget, globMatches, type WalkBounds } from './globWalk.js';
import { guardMounts } from './guardMounts.js';
import { FLOOR, type MountOp, type MountPlan } from './mountPlan.js';
import { SandboxCompileError } from './sandboxError.js';

export interface CompileOptions {
  /** Prompt-tier accesses approved before the run: visible (and writable, for writes) inside the sandbox. */
  approved?: readonly Access[];
  /** Bounds of the search for what the policy's globs match (default 50,000 entries, 2 s). */
  walk?: WalkBounds;
  /**
   * Absolute paths that stay read-only inside whatever the policy lets the shell write: what a later process
   * outside the sandbox trusts (the CLI's policy and code caches — a command that could rewrite them would
   * change the policy of every later call). Masks still win; a path that does not exist is skipped.
   */
  readOnly?: readonly string[];
}

const MAGIC = /[*?[\]{}()!+@]/;

function literalPrefix(pattern: string): string {
  const out: string[] = [];
  for (const part of pattern.split('/')) {
    if (MAGIC.test(part)) break;
    out.push(part);
  }
  const prefix = out.join('/');
  return prefix === '' ? '/' : prefix;
}

function realOf(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}

const depth = (p: string) => (p === '/' ? 0 : p.split('/').length - 1);

type State = 'hidden' | 'ro' | 'rw';
const stateOf = (kind: MountOp['kind']): State => (kind === 'rw' ? 'rw' : kind === 'ro' ? 'ro' : 'hidden');

/**
 * Compiles a folder-rules policy into the mounts of a sandbox for one context: what the shell may write is
 * bound read-write, what it may only read stays read-only, what it may not read is masked. Every path is
 * judged by the same evaluator the static layer uses, so both layers read the policy alike (tiers,
 * first-match, case-insensitive denies, per-vector rules). Globs have no mount equivalent: each match that
 * exists now is masked (`**\/.env` ⇒ every `.env` under the searched roots), a write glob narrower than a
 * subtree is not made writable (conservative), and what is created during the run is not masked.
 *
 * @example
 * ```ts
 * const plan = compileMounts(loadPolicy({ dialect: 'toolgate', file: 'policy.yaml' }), ctx);
 * plan.ops; // [{kind: 'rw', path: '/srv/ws'}, {kind: 'mask-dir', path: '/home/u/.ssh'}, …]
 * ```
 */
export function compileMounts(
  policy: CompiledPolicy,
  ctx: Pick<CallContext, 'cwd' | 'workspace' | 'home' | 'env'>,
  options: CompileOptions = {},
): MountPlan {
  const ev = evaluatorFor(policy, ctx);
  const defaults = policy.defaults?.shell ?? policy.default;
  const disabled = policy.disabled;
  const base: MountPlan['base'] = disabled || defaults.read === 'allow' ? 'root' : 'floor';
  const writableRoot = disabled || defaults.write === 'allow';
  const approved = options.approved ?? [];

  const judge = (lexical: string, real: string, op: Op): boolean => {
    if (disabled) return true;
    const access: Access = {
      op,
      scope: 'path',
      raw: lexical,
      path: lexical,
      realPath: real,
      origin: 'shell:sandbox',
      certain: true,
    };
    const d = ev.evaluate(access, { walk: false }).decision;
    if (d === 'allow') return true;
    if (d === 'deny') return false;
    return approved.some(
      (a) =>
        a.realPath !== null &&
        (a.realPath === real || (a.scope === 'subtree' && isWithin(real, a.realPath))) &&
        (op === 'read' || a.op === 'write'),
    );
  };

  // Candidates: every literal path a rule names, the root of every `X/**`, and what the globs match now.
  const candidates = new Map<string, string>(); // lexical → why
  const globs: GlobTarget[] = [];
  const reach = [ctx.workspace, ctx.cwd, ctx.home];
  const listings: Listings = new Map();
  ev.policy.rules.forEach((rule, i) => {
    if (rule.vector === 'file') return;
    // A deny, prompt or block rule matches case-insensitively (the evaluator's case mode): every existing
    // spelling of what it names is a candidate, and the evaluator judges each (`~/.SSH` under `~/.ssh/**`).
    const nocase = rule.access === 'deny' || rule.access === 'prompt' || rule.block === true;
    const spellings = (path: string) => (nocase ? [path, ...caseVariants(path, listings)] : [path]);
    expandedOf(ev, i).forEach((pattern, k) => {
      const why = `${rule.access} ${rule.pattern} (${rule.source})`;
      if (!MAGIC.test(pattern)) for (const p of spellings(pattern)) candidates.set(p, why);
      else if (pattern.endsWith('/**') && !MAGIC.test(pattern.slice(0, -3)))
        for (const p of spellings(pattern.slice(0, -3) || '/')) candidates.set(p, why);
      else if (rule.access !== 'write') {
        // Only what a glob denies or narrows needs a mount; a narrower write glob stays read-only.
        const prefix = literalPrefix(pattern);
        const roots = prefix === '/' ? reach : spellings(prefix);
        // The evaluator's own glob (its case mode and options): what is masked is what the static check denies.
        const matcher = ev.matchers(i)[k];
        if (matcher === undefined)
          throw new SandboxCompileError(`no compiled glob for ${JSON.stringify(pattern)} (${why})`);
        // `PREFIX/**/…`: every directory beneath PREFIX may hold a match (a globstar with dot crosses any name).
        const next = pattern.slice(prefix === '/' ? 1 : prefix.length + 1).split('/')[0];
        globs.push({ matcher, roots, ...(next === '**' ? { anyDirBelow: roots } : {}) });
      }
    });
  });
  for (const a of approved) if (a.realPath !== null) candidates.set(a.realPath, 'approved before the run');
  // Built in, whatever the policy says: what toolgate trusts outside the sandbox (guardFiles.ts).
  const guard = guardMounts(guardPathsOf(policy, ctx), options.readOnly ?? [], realOf, ctx.home);
  const frozen = guard.frozen;
  for (const [p, why] of guard.candidates) candidates.set(p, why);
  // Sockets of daemons that act as root for whoever connects (docker, podman, containerd, snapd…): a socket
  // stays connectable on a read-only mount, so the sandboxed command could ask the daemon to run a
  // privileged container with `/` mounted — every mask escaped. Masked unless the policy lets the sandbox
  // write to that very socket.
  const daemons = new Set<string>();
  for (const sock of daemonSockets(ctx)) {
    const real = realOf(sock);
    if (real === undefined) continue;
    try {
      if (!statSync(real).isSocket()) continue;
    } catch {
      continue;
    }
    daemons.add(real);
    if (!candidates.has(sock)) candidates.set(sock, "a root daemon's socket (it would act for the sandbox)");
  }
  const { matches, walked } =
    globs.length > 0 ? globMatches(globs, options.walk) : { matches: [], walked: 0 };
  for (const m of matches) if (!candidates.has(m)) candidates.set(m, 'matches a glob rule');

  const wanted = new Map<string, MountOp>();
  for (const [lexical, why] of candidates) {
    const real = realOf(lexical);
    if (real === undefined || real === '/') continue;
    if (['/proc', '/dev'].some((s) => isWithin(real, s))) continue;
    let isDir: boolean;
    try {
      isDir = statSync(real).isDirectory();
    } catch {
      continue;
    }
    const read = judge(lexical, real, 'read') && (lexical === real || judge(real, real, 'read'));
    const write = read && judge(lexical, real, 'write') && (lexical === real || judge(real, real, 'write'));
    const kind: MountOp['kind'] =
      !read || guard.hidden.has(real) || (daemons.has(real) && !write)
        ? isDir
          ? 'mask-dir'
          : 'mask-file'
        : write && !frozen.some((f) => isWithin(real, f)) && !guard.sealed.has(real)
          ? 'rw'
          : 'ro';
    const prior = wanted.get(real);
    // Two spellings of one real path: the stricter wins.
    if (prior && order(prior.kind) <= order(kind)) continue;
    wanted.set(real, { kind, path: real, why });
  }

  // Keep an op only where it changes what its nearest ancestor gives.
  const sorted = [...wanted.values()].sort(
    (a, b) => depth(a.path) - depth(b.path) || (a.path < b.path ? -1 : 1),
  );
  const kept: MountOp[] = [];
  const inherited = (path: string): State => {
    for (let i = kept.length - 1; i >= 0; i--) {
      const k = kept[i]!;
      if (isWithin(path, k.path)) return stateOf(k.kind);
    }
    if (writableRoot) return 'rw';
    if (base === 'root') return 'ro';
    return FLOOR.some((f) => isWithin(path, f)) ? 'ro' : 'hidden';
  };
  for (const op of sorted) {
    if (inherited(op.path) !== stateOf(op.kind)) kept.push(op);
  }
  // A sealed directory (`.claude`) that does not exist under a writable parent: created empty and read-only,
  // so no hook settings can be put there during the run (bubblewrap makes the mount point on the host).
  for (const dir of guard.missingSealed) {
    const parent = realOf(dirname(dir));
    if (parent === undefined || inherited(parent) !== 'rw') continue;
    const path = parent === '/' ? `/${basename(dir)}` : `${parent}/${basename(dir)}`;
    kept.push({ kind: 'mask-dir', path, why: "sealed: an assistant's settings directory, absent at start" });
  }
  const pins = pinsFor(kept, inherited);
  const ops =
    pins.length === 0
      ? kept
      : [...kept, ...pins].sort((a, b) => depth(a.path) - depth(b.path) || (a.path < b.path ? -1 : 1));
  return { base, writableRoot, ops, walked, cwd: ctx.cwd };
}

/**
 * Where root-equivalent daemons listen (docker-run(1) "DOCKER_HOST", podman's `CONTAINER_HOST`, rootless
 * docker's `$XDG_RUNTIME_DIR/docker.sock`, containerd, CRI-O, BuildKit, snapd, libvirt).
 */
export function daemonSockets(ctx: Pick<CallContext, 'home' | 'env'>): string[] {
  const uid = process.getuid?.() ?? 0;
  const runtime = ctx.env?.XDG_RUNTIME_DIR || `/run/user/${uid}`;
  const list = [
    '/run/docker.sock',
    '/var/run/docker.sock',
    `${runtime}/docker.sock`,
    `${ctx.home}/.docker/run/docker.sock`,
    '/run/podman/podman.sock',
    `${runtime}/podman/podman.sock`,
    '/run/containerd/containerd.sock',
    '/run/crio/crio.sock',
    '/run/buildkit/buildkitd.sock',
    '/run/snapd.socket',
    '/run/snapd-snap.socket',
    '/run/libvirt/libvirt-sock',
  ];
  for (const name of ['DOCKER_HOST', 'CONTAINER_HOST']) {
    const v = ctx.env?.[name];
    if (typeof v === 'string' && v.startsWith('unix://') && v.length > 7)
      list.push(v.slice('unix://'.length));
  }
  return list;
}

/**
 * Renames cannot carry a protection away: a mask or read-only mount moves with its parent when the parent is
 * renamed, and a fresh directory can take the old name (`mv .claude .claude.old && mkdir .claude`). Every
 * writable directory between a protected path and the mount it lies in is bound onto itself: the kernel
 * refuses to rename (or remove) a mount point (EBUSY), and the protected mount itself is one already.
 */
function pinsFor(kept: readonly MountOp[], inherited: (path: string) => State): MountOp[] {
  const mounted = new Set(kept.map((k) => k.path));
  const pins = new Map<string, MountOp>();
  for (const op of kept) {
    if (op.kind === 'rw') continue;
    for (let dir = dirname(op.path); dir !== '/'; dir = dirname(dir)) {
      if (mounted.has(dir) || pins.has(dir) || inherited(dir) !== 'rw') break;
      pins.set(dir, {
        kind: 'rw',
        path: dir,
        why: `pinned: holds ${op.path} (a mount point cannot be renamed)`,
      });
    }
  }
  return [...pins.values()];
}

/** Stricter first: a path with two spellings gets the stricter mount. */
function order(kind: MountOp['kind']): number {
  return kind === 'mask-dir' || kind === 'mask-file' ? 0 : kind === 'ro' ? 1 : 2;
}

function expandedOf(ev: Evaluator, index: number): readonly string[] {
  return ev.expanded[index] ?? [];
}

/** Whether `path` exists as a symlink (floor directories like `/bin` are links on merged-/usr systems). */
export function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
