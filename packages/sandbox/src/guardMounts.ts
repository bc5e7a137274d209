import { type Dirent, existsSync, lstatSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { type GuardPaths, RUNTIME_PREFIX } from '@toolgate/folder-rules';

/** What the built-in guard paths add to a plan (on real paths). */
export interface GuardMounts {
  /** Read-only with everything beneath, whatever the policy lets the shell write (masks still win). */
  frozen: string[];
  /** Directories read-only themselves (no new name in them); their entries are judged one by one. */
  sealed: Set<string>;
  /** Masked whatever the policy says: toolgate's cache, its entries bound back read-only but its spools. */
  hidden: Set<string>;
  /** Paths to judge (real path → why). */
  candidates: Map<string, string>;
  /** Sealed directories that do not exist (lexical), of an assistant installed for this user. */
  missingSealed: string[];
}

const WHY_FROZEN = "read-only whatever the policy says: toolgate's own file, trusted outside the sandbox";

function entriesOf(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The mounts of the guard paths (folder-rules' `guardPathsOf`, the list the static check enforces) plus the
 * caller's own read-only paths. toolgate's cache directory is masked and its entries bound back read-only,
 * except its runtime directories (the hook server's `hookd-*` spools) and sockets: those stay invisible, and so
 * does whatever appears in the cache during the run (a spool made by a server started meanwhile).
 */
export function guardMounts(
  guard: GuardPaths,
  readOnly: readonly string[],
  realOf: (path: string) => string | undefined,
  home: string,
): GuardMounts {
  const candidates = new Map<string, string>();
  const frozen: string[] = [];
  for (const p of [...readOnly, ...guard.files, ...guard.dirs]) {
    const real = realOf(p);
    if (real === undefined || real === '/') continue;
    frozen.push(real);
    candidates.set(real, WHY_FROZEN);
  }
  const sealed = new Set<string>();
  const missingSealed: string[] = [];
  for (const dir of guard.sealed) {
    const real = realOf(dir);
    if (real === undefined) {
      // The project's `.claude` of an assistant this user has (its `~/.claude` exists): made, empty, read-only.
      // (Not a dangling link: bubblewrap would make its mount point wherever the link leads.)
      const own = join(home, basename(dir));
      if (dir !== own && existsSync(own) && !isLink(dir)) missingSealed.push(dir);
      continue;
    }
    if (real === '/' || !isDir(real)) continue;
    sealed.add(real);
    candidates.set(real, "sealed: an assistant's settings directory (no new name in it)");
    for (const e of entriesOf(real))
      if (!candidates.has(join(real, e.name)))
        candidates.set(join(real, e.name), 'an entry of a sealed directory');
  }
  const hidden = new Set<string>();
  const cache = guard.cache === undefined ? undefined : realOf(guard.cache);
  if (cache !== undefined && cache !== '/' && isDir(cache)) {
    hidden.add(cache);
    candidates.set(cache, "toolgate's cache: its runtime directories are invisible, the rest read-only");
    for (const e of entriesOf(cache))
      if (!e.name.startsWith(RUNTIME_PREFIX) && !e.isSocket())
        candidates.set(join(cache, e.name), WHY_FROZEN);
  }
  return { frozen, sealed, hidden, candidates, missingSealed };
}
