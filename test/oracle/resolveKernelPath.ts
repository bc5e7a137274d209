import { lstatSync, readlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Resolves an absolute path component by component as the kernel does (a symlink is followed before a
 * later `..` applies), against the tree as it is now. A missing component ends the walk: the rest is
 * appended as named, which is where the kernel would have created it. `follow` says whether a symlink in
 * the final component is followed (open, stat) or named itself (unlink, rename, lstat).
 */
export function resolveKernelPath(path: string, follow: boolean, hops = 0): string {
  const parts = path.split('/').filter((c) => c !== '' && c !== '.');
  let cur = '/';
  for (let i = 0; i < parts.length; i++) {
    const comp = parts[i] ?? '';
    if (comp === '..') {
      cur = dirname(cur);
      continue;
    }
    const next = join(cur, comp);
    const last = i === parts.length - 1;
    let isLink = false;
    try {
      isLink = lstatSync(next).isSymbolicLink();
    } catch {
      return join(next, ...parts.slice(i + 1));
    }
    if (!isLink || (last && !follow) || hops > 40) {
      cur = next;
      continue;
    }
    const target = readlinkSync(next);
    // Concatenated, not path.join: join would apply a `..` in the target lexically, before its links.
    cur = resolveKernelPath(target.startsWith('/') ? target : `${cur}/${target}`, true, hops + 1);
  }
  return cur;
}
