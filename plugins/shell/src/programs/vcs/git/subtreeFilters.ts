import type { SubtreeFilter } from '@toolgate/core';
import { isTracked, type TrackedSet } from './gitIndex.js';
import type { GitignoreRules } from './gitignoreRules.js';

/** What a git subcommand does beneath the worktree, as a filter of the policy's walk. */
export type WorktreeFilterKind =
  /** Reads tracked files only (diff, grep, commit's index refresh, `add -u`). */
  | 'tracked'
  /** Tracked files plus untracked files that are not ignored (`add -A`, status's untracked walk). */
  | 'unignored'
  /** Every file except untracked ones that are not ignored: git refuses to overwrite those (checkout, merge). */
  | 'notUntracked'
  /** Untracked files only, ignored ones too when `withIgnored` (clean). */
  | 'untracked'
  /** The `.gitignore` files beneath (clean reads them to tell ignored from untracked). */
  | 'ignoreFiles'
  /**
   * `git status`'s listing with untracked files shown the default way (`-unormal`): an untracked directory is
   * shown as its name only ("?? dir/", a name its parent's listing gives), so its own listing reveals nothing.
   */
  | 'statusNormal';

export interface FilterInput {
  kind: WorktreeFilterKind;
  /** Where the access is rooted, relative to the worktree root ('' for the root itself). */
  prefix: string;
  tracked: TrackedSet | null;
  ignore: GitignoreRules | null;
  /** clean -x: ignored files are removed too; clean -X: only ignored ones. */
  ignored?: 'also' | 'only';
  name: string;
}

/**
 * A filter for a subtree access under a git worktree, or `undefined` when what git skips cannot be
 * known (index unreadable): then the policy judges everything beneath, which is the safe side.
 */
export function worktreeFilter(input: FilterInput): SubtreeFilter | undefined {
  const { kind, prefix, tracked, ignore } = input;
  if (tracked === null) return undefined;
  const rel = (p: string) => (prefix === '' ? p : `${prefix}/${p}`);
  const isIgnored = (p: string, isDir: boolean) => ignore?.ignored(p, isDir) ?? false;
  // `unknown` counts as whichever answer skips less.
  const skipsInWorktree = (p: string, isDir: boolean): boolean => {
    // The repository itself is not content: its own accesses judge it.
    if (p === '.git' || p.startsWith('.git/')) return true;
    const t = isTracked(tracked, p, isDir);
    switch (kind) {
      case 'ignoreFiles':
        return !isDir && !(p === '.gitignore' || p.endsWith('/.gitignore'));
      case 'tracked':
        return !t;
      case 'unignored':
        return !t && isIgnored(p, isDir) === true;
      case 'statusNormal':
        return !t && (isDir || isIgnored(p, false) === true);
      case 'notUntracked':
        return !isDir && !t && isIgnored(p, false) === false;
      case 'untracked': {
        if (!isDir && t) return true;
        if (input.ignored === 'also') return false;
        if (input.ignored === 'only') return !isDir && isIgnored(p, false) === false;
        return isIgnored(p, isDir) === true && !t;
      }
    }
  };
  return { name: input.name, skips: (p, isDir) => skipsInWorktree(rel(p), isDir) };
}
