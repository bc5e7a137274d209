import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { posix } from 'node:path';
import { describeValue, ToolgateError } from './errors.js';
import { type ExpandContext, type ExpandOptions, expandPath } from './expandPath.js';
import type { ResolvedPath, SymlinkHop } from './types.js';

export interface ResolveOptions extends ExpandOptions {
  /**
   * Directories already found real (no symlink on their path) *during the current call*; filled in as paths
   * are resolved, so later paths in the same directory cost one lstat. Never share it across calls: a link
   * can be created between two calls. `state.resolve` manages one per call.
   */
  realDirs?: Set<string>;
  /**
   * Follow a symlink in the last component (default true). `false` is for operations on the link itself —
   * delete, rename, `ln -sf` over it — which touch the link, not its target. A trailing `/` always follows,
   * as the kernel does.
   */
  followFinal?: boolean;
  /**
   * A hint, never a change of answer: the path most likely exists (a read). Its realpath(3) is asked first,
   * sparing the existence check a path that exists needs otherwise (one syscall); a path that does not exist
   * then costs a thrown error instead.
   */
  expectExisting?: boolean;
}

/** The kernel's limit on symlinks followed in one lookup (Linux MAXSYMLINKS). */
const MAX_LINKS = 40;
const PROC_PID = /^(?:\d+|self|thread-self)$/;
// Magic links that name *a process's own* state: they resolve differently in the tool's process than in
// ours, so what they point at cannot be known here. `root` is followed (it is `/` outside a chroot).
const PROC_MAGIC = new Set(['cwd', 'exe', 'fd', 'map_files', 'fdinfo', 'ns']);

function assertRaw(raw: unknown): asserts raw is string {
  if (typeof raw !== 'string') {
    throw new ToolgateError('TOOLGATE_ERR_INVALID_PATH', `path must be a string, got ${describeValue(raw)}`, {
      raw,
    });
  }
  if (raw.length === 0)
    throw new ToolgateError('TOOLGATE_ERR_INVALID_PATH', 'path must not be empty', { raw });
  if (raw.includes('\0')) {
    throw new ToolgateError('TOOLGATE_ERR_INVALID_PATH', `path contains a NUL byte: ${describeValue(raw)}`, {
      raw,
    });
  }
}

interface Walk {
  real: string | null;
  exists: boolean;
  reason?: string;
}

function isProcMagic(out: readonly string[], component: string): boolean {
  if (out[0] !== 'proc' || !PROC_MAGIC.has(component)) return false;
  if (out.length === 2) return PROC_PID.test(out[1]!);
  return out.length === 4 && PROC_PID.test(out[1]!) && out[2] === 'task' && /^\d+$/.test(out[3]!);
}

/**
 * Resolves `full` (absolute, unnormalised) component by component the way the kernel does: a symlink is
 * followed before a later `..` is applied, so `sub/../x` with `sub -> /elsewhere/dir` is `/elsewhere/x`.
 * A tail that does not exist yet is appended under its nearest existing ancestor; a dangling link resolves
 * to where its target would be created.
 */
function walk(full: string, hops: SymlinkHop[]): Walk {
  const pending = full.split('/').reverse();
  const out: string[] = [];
  // Index in `out` of the first component that does not exist; -1 while everything so far exists.
  let missingAt = -1;
  // The kernel fails a lookup through a missing component even when a later `..` climbs back out of it.
  let passedMissing = false;
  let links = 0;
  while (pending.length > 0) {
    const c = pending.pop()!;
    if (c === '' || c === '.') continue;
    if (c === '..') {
      out.pop();
      // Back above the missing part (`new/../link/x`): existing components are looked up again.
      if (missingAt !== -1 && out.length <= missingAt) missingAt = -1;
      continue;
    }
    if (missingAt !== -1) {
      out.push(c);
      continue;
    }
    if (isProcMagic(out, c)) {
      return { real: null, exists: false, reason: `/${[...out, c].join('/')} names a process's own state` };
    }
    const candidate = `/${out.length > 0 ? `${out.join('/')}/` : ''}${c}`;
    let isLink = false;
    let isDir = false;
    try {
      // throwIfNoEntry: a missing component is the common case for writes, and a thrown fs error costs
      // far more than the syscall itself.
      const st = lstatSync(candidate, { throwIfNoEntry: false });
      if (st === undefined) throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
      isLink = st.isSymbolicLink();
      isDir = st.isDirectory();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') {
        missingAt = out.length;
        passedMissing = true;
        out.push(c);
        continue;
      }
      return { real: null, exists: false, reason: `cannot inspect ${candidate} (${code ?? 'error'})` };
    }
    if (isLink) {
      if (++links > MAX_LINKS)
        return {
          real: null,
          exists: false,
          reason: `too many levels of symbolic links at ${candidate} (loop)`,
        };
      let target: string;
      try {
        target = readlinkSync(candidate);
      } catch (error) {
        return {
          real: null,
          exists: false,
          reason: `cannot read link ${candidate} (${(error as NodeJS.ErrnoException).code})`,
        };
      }
      hops.push({ link: candidate, target });
      if (target.startsWith('/')) out.length = 0;
      const parts = target.split('/');
      for (let i = parts.length - 1; i >= 0; i--) pending.push(parts[i]!);
      continue;
    }
    // A file in the middle of a path: the kernel answers ENOTDIR, nothing beneath it exists.
    // Anything after it, even `.` or a trailing slash, makes the kernel answer ENOTDIR.
    if (!isDir && pending.length > 0) {
      missingAt = out.length + 1;
      passedMissing = true;
    }
    out.push(c);
  }
  return { real: `/${out.join('/')}`, exists: !passedMissing };
}

function resolveNewFile(lexical: string): Walk | undefined {
  const dir = parentOf(lexical);
  if (!existsSync(dir)) return undefined; // the directory is missing too: the walk answers
  try {
    if (realpathSync.native(dir) !== dir) return undefined; // behind a link: the walk records the hops
  } catch {
    return undefined;
  }
  // It exists as a (dangling) link: the walk follows it to where its target would be created.
  try {
    // lstat the lexical form: `link/.` must find the link itself, not look through it.
    if (lstatSync(lexical, { throwIfNoEntry: false }) !== undefined) return undefined;
  } catch {
    return undefined; // ENOTDIR: `dir` is a file; the walk reports the path as missing
  }
  // The directory is real and the last component is absent: it would be created right there.
  return { real: lexical, exists: false };
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash <= 0 ? '/' : path.slice(0, slash);
}

/** A path in a directory this call already found real: one lstat of the last component decides. */
function resolveInRealDir(full: string, lexical: string): Walk | undefined {
  let st: ReturnType<typeof lstatSync> | undefined;
  try {
    st = lstatSync(lexical, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
  if (st === undefined) return { real: lexical, exists: false };
  if (st.isSymbolicLink()) return undefined; // the walk follows it and records the hop
  if (!st.isDirectory() && (full.endsWith('/') || full.endsWith('/.'))) return undefined; // ENOTDIR
  return { real: lexical, exists: true };
}

function resolveFull(
  full: string,
  lexical: string,
  hops: SymlinkHop[],
  realDirs?: Set<string>,
  expectExisting = false,
): Walk {
  if (realDirs !== undefined && !full.includes('/..') && realDirs.has(parentOf(lexical))) {
    const known = resolveInRealDir(full, lexical);
    if (known !== undefined) return known;
  }
  const result = resolveFullUncached(full, lexical, hops, expectExisting);
  // Remember the directory only when the answer involved no link: then every ancestor is real.
  if (realDirs !== undefined && result.real === lexical && hops.length === 0) realDirs.add(parentOf(lexical));
  return result;
}

function resolveFullUncached(
  full: string,
  lexical: string,
  hops: SymlinkHop[],
  expectExisting: boolean,
): Walk {
  // Fast paths, each a few syscalls and no thrown fs errors (an exception costs more than the syscall):
  // an existing path with no symlink or `..` involved is answered by one realpath(3); a new file in an
  // existing, link-free directory by realpath(3) of the directory. Anything else takes the component walk,
  // which also records the hops.
  if (!full.includes('/..')) {
    if (expectExisting) {
      // A read: realpath(3) first. Any failure takes the way a failed existence check takes below (so a loop,
      // a dangling link or a missing file get the same answer as without the hint).
      let real: string | undefined;
      try {
        real = realpathSync.native(full);
      } catch {
        real = undefined;
      }
      if (real === undefined) {
        if (!full.endsWith('/')) {
          const newFile = resolveNewFile(lexical);
          if (newFile !== undefined) return newFile;
        }
        return walk(full, hops);
      }
      if (real === lexical) return { real, exists: true };
      return walk(full, hops);
    }
    if (existsSync(full)) {
      try {
        const real = realpathSync.native(full);
        if (real === lexical) return { real, exists: true };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ELOOP') {
          return { real: null, exists: false, reason: `too many levels of symbolic links in ${full} (loop)` };
        }
      }
    } else if (!full.endsWith('/')) {
      const newFile = resolveNewFile(lexical);
      if (newFile !== undefined) return newFile;
    }
  }
  return walk(full, hops);
}

/**
 * Resolves a raw path from a tool call to the path the operation really touches, with the kernel's
 * semantics (ARCHITECTURE.md invariant 4). Never cached across calls: a link can change between two calls.
 *
 * @example
 * ```ts
 * import { resolvePath } from '@toolgate/core';
 * const r = resolvePath('~/notes/../.ssh/id_rsa', { cwd: '/ws', workspace: '/ws', home: '/home/u', env: {} });
 * // r.lexical === '/home/u/.ssh/id_rsa'; r.real is where it lands after symlinks; r.certain === true
 * ```
 */
export function resolvePath(raw: unknown, ctx: ExpandContext, options: ResolveOptions = {}): ResolvedPath {
  assertRaw(raw);
  const expansion = expandPath(raw, ctx, options);
  const expanded = expansion.value;
  const full = expanded.startsWith('/') ? expanded : `${ctx.cwd}/${expanded}`;
  // An absolute path with no empty, `.` or `..` component and no trailing slash is its own lexical form.
  const lexical = full.length > 1 && !NOT_NORMAL.test(full) ? full : posix.resolve(full);
  const hops: SymlinkHop[] = [];
  if (!expansion.certain) return uncertain(raw, expanded, lexical, hops, expansion.reason ?? 'cannot expand');

  let result: Walk;
  const base = options.followFinal === false ? posix.basename(full) : '';
  if (
    options.followFinal === false &&
    !full.endsWith('/') &&
    base !== '.' &&
    base !== '..' &&
    lexical !== '/'
  ) {
    const parent = resolveFull(posix.dirname(full), posix.dirname(lexical), hops, options.realDirs);
    if (parent.real === null) result = parent;
    else {
      const real = parent.real === '/' ? `/${base}` : `${parent.real}/${base}`;
      let exists = false;
      if (parent.exists) {
        try {
          exists = lstatSync(real, { throwIfNoEntry: false }) !== undefined;
        } catch {
          exists = false;
        }
      }
      result = { real, exists };
    }
  } else {
    result = resolveFull(full, lexical, hops, options.realDirs, options.expectExisting === true);
  }

  if (result.real === null) return uncertain(raw, expanded, lexical, hops, result.reason ?? 'unresolvable');
  return { raw, expanded, lexical, real: result.real, certain: true, hops, exists: result.exists };
}

/** `//`, `/./`, `/../`, or a trailing `/`, `/.`, `/..`: posix.resolve has something to normalise. */
const NOT_NORMAL = /\/\.{0,2}(?:\/|$)/;

function uncertain(
  raw: string,
  expanded: string,
  lexical: string,
  hops: SymlinkHop[],
  reason: string,
): ResolvedPath {
  return { raw, expanded, lexical, real: null, certain: false, reason, hops, exists: false };
}
