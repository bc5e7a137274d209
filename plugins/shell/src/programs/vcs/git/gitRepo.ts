import { lstatSync, statSync } from 'node:fs';
import { posix } from 'node:path';
import { readBinaryBounded } from './readBinaryBounded.js';

/** A repository as git finds it: its git dir, its worktree (none for a bare repository). */
export interface GitRepo {
  gitDir: string;
  /** `null` for a bare repository or when run inside the git dir. */
  worktree: string | null;
  /** `true` when no repository was found and these are where `git init` would put one. */
  missing?: boolean;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function isFile(p: string): boolean {
  try {
    return lstatSync(p).isFile();
  } catch {
    return false;
  }
}

/** A directory that is itself a git dir: HEAD, objects/ and refs/ (git's is_git_directory). */
function looksLikeGitDir(d: string): boolean {
  return isFile(`${d}/HEAD`) && isDir(`${d}/objects`) && isDir(`${d}/refs`);
}

/**
 * Reads a `.git` file (worktrees, submodules): `gitdir: PATH`, relative to the file's directory.
 * `null` when it is not one we can read with certainty.
 */
function gitFileTarget(file: string): string | null {
  const buf = readBinaryBounded(file, 4096);
  if (buf === null) return null;
  const m = /^gitdir: (.+?)\r?\n?$/.exec(buf.toString('utf8'));
  if (!m) return null;
  return posix.resolve(posix.dirname(file), m[1]!);
}

/**
 * Finds the repository git would use from the real directory `start`, the way setup.c does: each
 * ancestor's `.git` (a directory, or a file naming one), or the ancestor itself when it is a git dir.
 * Returns `null` when a `.git` exists but cannot be read — the caller is then uncertain.
 */
export function findRepo(start: string): GitRepo | null {
  for (let d = start; ; d = posix.dirname(d)) {
    const dotGit = d === '/' ? '/.git' : `${d}/.git`;
    if (isDir(dotGit)) return { gitDir: dotGit, worktree: d };
    if (isFile(dotGit)) {
      const target = gitFileTarget(dotGit);
      return target === null ? null : { gitDir: target, worktree: d };
    }
    if (looksLikeGitDir(d)) return { gitDir: d, worktree: null };
    if (d === '/') break;
  }
  // No repository: most subcommands fail; judge as if one were at the start so nothing is hidden.
  return { gitDir: `${start === '/' ? '' : start}/.git`, worktree: start, missing: true };
}
