import { fdPath, type SyscallLine, stringArg } from './straceLine.js';

/**
 * What the kernel did to a path. `stat` is an existence/metadata check only (stat, access, readlink): the
 * oracle reports those apart, since a guard that judged every existence check would deny a lot.
 */
export type KernelOp = 'read' | 'write' | 'list' | 'stat';

/** One path operation of a syscall, before symlink resolution. */
export interface RawEffect {
  op: KernelOp;
  /** Absolute path as the syscall named it: its base directory (dirfd or cwd) joined with the argument. */
  named: string;
  /** Whether the kernel follows a symlink in the final component. */
  follow: boolean;
  /** The kernel's own resolved path, when `-y` printed it for a returned descriptor. */
  real?: string;
}

/** How one syscall names its paths: argument indexes of the dirfd (or `null` for the cwd) and the path. */
interface PathArg {
  dir: number | null;
  path: number;
  op: KernelOp | 'open';
  follow: boolean | 'flags';
  /** Index of the flags argument holding AT_SYMLINK_NOFOLLOW / AT_SYMLINK_FOLLOW. */
  flags?: number;
}

const W = (dir: number | null, path: number, follow: boolean | 'flags' = false, flags?: number): PathArg => ({
  dir,
  path,
  op: 'write',
  follow,
  flags,
});
const S = (dir: number | null, path: number, follow: boolean | 'flags' = true, flags?: number): PathArg => ({
  dir,
  path,
  op: 'stat',
  follow,
  flags,
});

// Every file syscall x86_64 strace's %file class prints. Creating or removing a name is a write of that
// name (the link itself, never its target); changing metadata is a write; a hard link's source is only
// named (`stat`), the kernel reads none of its contents.
const TABLE: Record<string, PathArg[]> = {
  open: [{ dir: null, path: 0, op: 'open', follow: 'flags', flags: 1 }],
  openat: [{ dir: 0, path: 1, op: 'open', follow: 'flags', flags: 2 }],
  openat2: [{ dir: 0, path: 1, op: 'open', follow: 'flags', flags: 2 }],
  creat: [W(null, 0, true)],
  execve: [{ dir: null, path: 0, op: 'read', follow: true }],
  execveat: [{ dir: 0, path: 1, op: 'read', follow: true }],
  // cd reads nothing (a search-permission check); the paths used after it are judged on their own.
  chdir: [{ dir: null, path: 0, op: 'stat', follow: true }],
  truncate: [W(null, 0, true)],
  unlink: [W(null, 0)],
  unlinkat: [W(0, 1)],
  rmdir: [W(null, 0)],
  mkdir: [W(null, 0)],
  mkdirat: [W(0, 1)],
  mknod: [W(null, 0)],
  mknodat: [W(0, 1)],
  rename: [W(null, 0), W(null, 1)],
  renameat: [W(0, 1), W(2, 3)],
  renameat2: [W(0, 1), W(2, 3)],
  link: [S(null, 0, false), W(null, 1)],
  linkat: [S(0, 1, 'flags', 4), W(2, 3)],
  symlink: [W(null, 1)],
  symlinkat: [W(1, 2)],
  chmod: [W(null, 0, true)],
  fchmodat: [W(0, 1, true)],
  fchmodat2: [W(0, 1, 'flags', 3)],
  chown: [W(null, 0, true)],
  lchown: [W(null, 0)],
  fchownat: [W(0, 1, 'flags', 4)],
  utime: [W(null, 0, true)],
  utimes: [W(null, 0, true)],
  futimesat: [W(0, 1, true)],
  utimensat: [W(0, 1, 'flags', 3)],
  setxattr: [W(null, 0, true)],
  lsetxattr: [W(null, 0)],
  removexattr: [W(null, 0, true)],
  lremovexattr: [W(null, 0)],
  stat: [S(null, 0)],
  lstat: [S(null, 0, false)],
  newfstatat: [S(0, 1, 'flags', 3)],
  statx: [S(0, 1, 'flags', 2)],
  access: [S(null, 0)],
  faccessat: [S(0, 1)],
  faccessat2: [S(0, 1, 'flags', 3)],
  readlink: [S(null, 0, false)],
  readlinkat: [S(0, 1, false)],
  statfs: [S(null, 0)],
  getxattr: [S(null, 0)],
  lgetxattr: [S(null, 0, false)],
  listxattr: [S(null, 0)],
  llistxattr: [S(null, 0, false)],
  inotify_add_watch: [S(null, 1)],
};

/** Joins a path argument onto its base the way the kernel does before resolving: absolute wins. */
function joinNamed(base: string, p: string): string {
  if (p.startsWith('/')) return p;
  return base.endsWith('/') ? `${base}${p}` : `${base}/${p}`;
}

function stripDeleted(p: string): string {
  return p.endsWith(' (deleted)') ? p.slice(0, -' (deleted)'.length) : p;
}

/** Classifies an open by its flags: a directory or O_PATH open lists, anything that may change it writes. */
function openOp(flags: string): KernelOp {
  if (/\bO_PATH\b/.test(flags)) return 'stat';
  if (/\bO_(WRONLY|RDWR|CREAT|TRUNC|APPEND)\b/.test(flags)) return 'write';
  // Opening a directory reads nothing: find opens its start directory only to return to it. Listing it is
  // the getdents64 on the descriptor, which `listedDirectory` reports.
  if (/\bO_DIRECTORY\b/.test(flags)) return 'stat';
  return 'read';
}

/**
 * The path effects of one completed syscall: nothing for failed calls (the kernel touched nothing), nor
 * for descriptor-only forms (`newfstatat(3, "", …, AT_EMPTY_PATH)`).
 */
export function syscallEffects(line: SyscallLine, cwd: string): RawEffect[] {
  const specs = TABLE[line.name];
  if (!specs || line.ret.startsWith('-1') || line.ret === '?') return [];
  const out: RawEffect[] = [];
  for (const spec of specs) {
    const p = stringArg(line.args[spec.path]);
    if (p === null || p === '') continue;
    const base = spec.dir === null ? cwd : fdPath(line.args[spec.dir]);
    if (base === null) continue;
    const flags = spec.flags === undefined ? '' : (line.args[spec.flags] ?? '');
    const op = spec.op === 'open' ? openOp(flags) : spec.op;
    let follow: boolean;
    if (spec.op === 'open')
      follow = !/\bO_NOFOLLOW\b/.test(flags) && !/O_CREAT\|O_EXCL|O_EXCL\|O_CREAT/.test(flags);
    else if (spec.follow === 'flags')
      follow = line.name === 'linkat' ? /AT_SYMLINK_FOLLOW/.test(flags) : !/AT_SYMLINK_NOFOLLOW/.test(flags);
    else follow = spec.follow;
    const effect: RawEffect = { op, named: joinNamed(stripDeleted(base), p), follow };
    if (spec.op === 'open') {
      const real = fdPath(line.ret);
      if (real !== null) effect.real = stripDeleted(real);
    }
    out.push(effect);
  }
  return out;
}

/** The directory a successful getdents/getdents64 listed (names were returned), or `null`. */
export function listedDirectory(line: SyscallLine): string | null {
  if (line.name !== 'getdents64' && line.name !== 'getdents') return null;
  if (!(Number.parseInt(line.ret, 10) > 0)) return null;
  const p = fdPath(line.args[0]);
  return p === null ? null : stripDeleted(p);
}

/** The directory a successful chdir/fchdir moves the process to, or `null`. */
export function chdirTarget(line: SyscallLine, cwd: string): string | null {
  if (line.ret !== '0') return null;
  if (line.name === 'chdir') {
    const p = stringArg(line.args[0]);
    return p === null ? null : joinNamed(cwd, p);
  }
  if (line.name === 'fchdir') return fdPath(line.args[0]);
  return null;
}

/** The pid a successful clone/fork creates, or `null`. */
export function childPid(line: SyscallLine): number | null {
  if (!/^(clone|clone3|fork|vfork)$/.test(line.name)) return null;
  const n = Number.parseInt(line.ret, 10);
  return Number.isInteger(n) && n > 0 ? n : null;
}

/** The cwd `-y` prints for AT_FDCWD in any argument: the kernel's own word for where the process is. */
export function fdcwdOf(line: SyscallLine): string | null {
  for (const a of line.args) if (a.startsWith('AT_FDCWD<')) return fdPath(a);
  return null;
}
