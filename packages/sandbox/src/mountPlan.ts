/** One mount of the sandbox, in the order bubblewrap applies them (parents first). */
export interface MountOp {
  /**
   * `ro`: bind the host path read-only; `rw`: bind it read-write; `mask-dir`: an empty read-only tmpfs over a
   * directory; `mask-file`: `/dev/null` bound over a file (opening it fails: bind mounts are `nodev`).
   */
  kind: 'ro' | 'rw' | 'mask-dir' | 'mask-file';
  path: string;
  /** Why: the rule or default that decided it (for `toolgate run --explain` and tests). */
  why: string;
}

/** The policy compiled to mounts for one context. */
export interface MountPlan {
  /**
   * `root`: the whole filesystem is visible read-only (the policy's default allows reads); `floor`: only the
   * system directories programs need to run, plus every root the policy lets the shell read.
   */
  base: 'root' | 'floor';
  /** The policy's default allows writes: `/` is bound read-write and only rules narrow it. */
  writableRoot: boolean;
  ops: MountOp[];
  /** Directory entries the glob walk read (what compiling cost). */
  walked: number;
  cwd: string;
}

/** System directories a `floor` sandbox keeps (read-only) so programs can start: loader, libraries, /etc. */
export const FLOOR = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'];
