import { type Dirent, readdirSync } from 'node:fs';
import type { SubtreeFilter } from '@toolgate/core';

/**
 * A character xargs (without -0) splits or unquotes a line at — or, for a `$(…)` the shell splits, one it
 * splits or globs at: a name holding one is not one item.
 */
export const XARGS_SPLITS = /[\s'"\\*?[]/;

/** Entries read at most when checking the names a pipe will carry (the policy walk's own bound). */
const MAX_ENTRIES = 50_000;

/**
 * Whether every path find would print beneath `root` (a real directory; `shown` is how find spells it) is
 * one xargs item: xargs without `-0` splits at blanks and newlines and takes quotes and backslashes as
 * quoting, so `src/a .env` would reach the command as `src/a` and `.env` (a path beside the cwd). Walks
 * what exists now, without following links (find -P), skipping the files find's tests exclude; a directory
 * is always descended (find prints what lies beneath it whatever its own name). Returns the reason it is not
 * safe, `null` when that cannot be told (the tree is unreadable or too large), or `undefined`.
 */
export function unsplittableBeneath(
  root: string,
  shown: string,
  filter: SubtreeFilter | undefined,
): string | null | undefined {
  if (XARGS_SPLITS.test(shown)) return `the start point ${JSON.stringify(shown)} holds a blank or quote`;
  const stack: { real: string; rel: string }[] = [{ real: root, rel: '' }];
  let seen = 0;
  while (stack.length > 0) {
    const dir = stack.pop() as { real: string; rel: string };
    let entries: Dirent[];
    try {
      entries = readdirSync(dir.real, { withFileTypes: true });
    } catch (e) {
      // find prints nothing beneath a directory it cannot read (only a message on stderr).
      if (dir.rel !== '' && (e as NodeJS.ErrnoException).code === 'EACCES') continue;
      if (dir.rel === '' && (e as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
      return null;
    }
    seen += entries.length;
    if (seen > MAX_ENTRIES) return null;
    for (const d of entries) {
      const rel = dir.rel === '' ? d.name : `${dir.rel}/${d.name}`;
      const isDir = d.isDirectory();
      if (isDir) stack.push({ real: `${dir.real === '/' ? '' : dir.real}/${d.name}`, rel });
      if (XARGS_SPLITS.test(d.name) && (isDir || !filter?.skips(rel, false)))
        return `${JSON.stringify(`${shown}/${rel}`)} holds a blank or quote, which xargs splits at`;
    }
  }
  return undefined;
}
