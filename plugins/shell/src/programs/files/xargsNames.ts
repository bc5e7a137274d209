import { type Dirent, readdirSync } from 'node:fs';
import type { SubtreeFilter } from '@toolgate/core';
import type { PrintedPaths } from '../../effects/extractTypes.js';

/**
 * A character xargs (without -0) splits or unquotes a line at — or, for a `$(…)` the shell splits, one it
 * splits or globs at: a name holding one is not one item. Also (`/-`) a path with a component starting with
 * `-`: the same line creating one where a printer without a `./` prefix prints it hands its taker an option.
 */
export const XARGS_SPLITS = /[\s'"\\*?[]|\/-/;

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
  /** How the printer spells its names: without their root, an entry `-x` directly beneath prints as `-x`. */
  spelled?: SpelledPaths,
): string | null | undefined {
  if (XARGS_SPLITS.test(shown)) return `the start point ${JSON.stringify(shown)} holds a blank or quote`;
  if (shown.startsWith('-')) return `the start point ${JSON.stringify(shown)} starts with -, an option`;
  const bare = spelled !== undefined && spelled.asGiven !== true;
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
      if (bare && dir.rel === '' && d.name.startsWith('-') && !filter?.skips(rel, isDir))
        return `${JSON.stringify(d.name)} is printed without a ./ before it: an option to the command taking it`;
      if (isDir) stack.push({ real: `${dir.real === '/' ? '' : dir.real}/${d.name}`, rel });
      if (XARGS_SPLITS.test(d.name) && (isDir || !filter?.skips(rel, false)))
        return `${JSON.stringify(`${shown}/${rel}`)} holds a blank or quote, which xargs splits at`;
    }
  }
  return undefined;
}

/**
 * Printed paths that say how they are spelled. `asGiven`: each name begins with its root as the command
 * line gave it (`find src` prints `src/x`, `find .` prints `./-x`), so a name starts with `-` only when its
 * root does. Without it the printer spells names relative to the root, without it (`git ls-files`, `grep -rl
 * PAT` with no path): an entry beneath the root named `-x` prints as `-x`.
 */
export type SpelledPaths = PrintedPaths & { asGiven?: boolean };

/**
 * Why a name the printer prints may start with `-` — an option, not an operand, to the command that takes it
 * (`--files0-from=list` makes `wc` read the files the list names) — or `undefined` when none can: a root
 * spelled with `-`, or (names spelled without their root) an entry directly beneath a root, not skipped by
 * the printer's filter, whose name starts with `-`. `resolve` gives a root's real directory (`null`: unknown).
 */
export function dashNameBeneath(
  paths: SpelledPaths,
  resolve: (root: PrintedPaths['roots'][number]) => string | null,
): string | undefined {
  for (const [k, root] of paths.roots.entries()) {
    if (root.value.startsWith('-')) return `the start point ${JSON.stringify(root.value)} starts with -`;
    if (paths.asGiven) continue;
    const real = resolve(root);
    if (real === null) return 'where the printed names lie is not known';
    let entries: Dirent[];
    try {
      entries = readdirSync(real, { withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOTDIR') continue;
      return `${real} cannot be read`;
    }
    for (const d of entries)
      if (d.name.startsWith('-') && !paths.filters[k]?.skips(d.name, d.isDirectory()))
        return `${JSON.stringify(d.name)} is printed without a ./ before it`;
  }
  return undefined;
}
