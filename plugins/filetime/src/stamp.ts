import { statSync } from 'node:fs';

/** What the check compares: a file that kept all three is the file the agent read. */
export interface Stamp {
  mtimeMs: number;
  size: number;
  /** A file replaced by a rename (an editor's atomic save, `git checkout`) has a new inode. */
  ino: number;
}

/**
 * The stamp of the regular file at `path`, or `undefined` when there is none (a new file, a directory, a
 * device: nothing the check compares). `path` is already resolved by core, so `stat` follows no more links.
 */
export function stampOf(path: string): Stamp | undefined {
  const st = statSync(path, { throwIfNoEntry: false });
  if (st === undefined || !st.isFile()) return undefined;
  return { mtimeMs: st.mtimeMs, size: st.size, ino: st.ino };
}

export function sameStamp(a: Stamp, b: Stamp): boolean {
  return a.mtimeMs === b.mtimeMs && a.size === b.size && a.ino === b.ino;
}
