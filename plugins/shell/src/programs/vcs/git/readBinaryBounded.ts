import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/**
 * Reads a regular file of at most `maxBytes` as bytes (`.git/index` is binary), or `null`. One open with
 * O_NONBLOCK and an fstat of the descriptor, so a FIFO or device swapped in cannot block the host. `noFollow`: a symlink is not read (git does not follow an in-tree
 * `.gitignore` that is a link, so neither may we, or we would skip what git adds).
 */
export function readBinaryBounded(path: string, maxBytes: number, noFollow = false): Buffer | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (noFollow ? constants.O_NOFOLLOW : 0));
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > maxBytes) return null;
    const buf = Buffer.alloc(st.size);
    let off = 0;
    while (off < st.size) {
      const n = readSync(fd, buf, off, st.size - off, off);
      if (n === 0) break;
      off += n;
    }
    return off === st.size ? buf : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
