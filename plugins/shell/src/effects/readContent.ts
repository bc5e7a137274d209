import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type { Access } from '@toolgate/core';
import { isWithin } from '@toolgate/core';
import { filteredOut, GIT_OWN } from './unknownContents.js';

/**
 * Whether an access already emitted by this line writes `path` or a subtree holding it. `gitDir`: count git's
 * own writes into its git dir too (where git will connect depends on its config, which `git remote set-url`
 * or `git config` earlier on the line rewrites). `skip`: origins (suffixes) not counted.
 */
export function writtenBefore(
  accesses: readonly Access[],
  path: string,
  gitDir = false,
  skip?: readonly string[],
): boolean {
  for (const a of accesses) {
    // Git's writes into its own git dir are modelled by git's handler (what `add` puts in the index is what
    // it read itself, judged there); other programs reading those files see them as written.
    if (a.op !== 'write' || (!gitDir && GIT_OWN.some((o) => a.origin.endsWith(o)))) continue;
    if (skip?.some((s) => a.origin.endsWith(s))) continue;
    // An uncertain write may land anywhere, including here.
    if (!a.certain || a.realPath === null) return true;
    if (a.realPath === path) return true;
    if (a.scope === 'subtree' && isWithin(path, a.realPath) && !filteredOut(a.filter, a.realPath, path))
      return true;
  }
  return false;
}

/**
 * Reads a regular file of at most `maxBytes` for content-aware analysis. One open, one fstat, one read:
 * the descriptor is checked, not the name, so a swap between the check and the read cannot feed us a
 * device or a FIFO that blocks the host.
 */
export function readBounded(
  path: string,
  maxBytes: number,
): { text: string; path: string } | { uncertain: string } {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    return { uncertain: `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}` };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { uncertain: `${path} is not a regular file` };
    if (st.size > maxBytes) return { uncertain: `${path} is larger than ${maxBytes} bytes` };
    const buf = Buffer.alloc(st.size);
    let off = 0;
    while (off < st.size) {
      const n = readSync(fd, buf, off, st.size - off, off);
      if (n === 0) break;
      off += n;
    }
    return { text: buf.toString('utf8', 0, off), path };
  } catch (err) {
    return { uncertain: `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}` };
  } finally {
    closeSync(fd);
  }
}
