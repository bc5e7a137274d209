import { accessSync, constants, statSync } from 'node:fs';

/**
 * Client-side hooks each subcommand can run (githooks(5)). `reference-transaction` runs on every ref
 * update and `post-index-change` whenever the index is written, so they belong to nearly every writer.
 */
const REF = ['reference-transaction'];
const INDEX = ['post-index-change'];
export const HOOKS: Readonly<Record<string, readonly string[]>> = {
  commit: [
    'pre-commit',
    'prepare-commit-msg',
    'commit-msg',
    'post-commit',
    'post-rewrite',
    'pre-auto-gc',
    ...REF,
    ...INDEX,
  ],
  merge: [
    'pre-merge-commit',
    'prepare-commit-msg',
    'commit-msg',
    'post-merge',
    'pre-auto-gc',
    ...REF,
    ...INDEX,
  ],
  pull: [
    'pre-merge-commit',
    'prepare-commit-msg',
    'commit-msg',
    'post-merge',
    'post-checkout',
    'post-rewrite',
    'pre-rebase',
    'pre-auto-gc',
    ...REF,
    ...INDEX,
  ],
  checkout: ['post-checkout', ...REF, ...INDEX],
  switch: ['post-checkout', ...REF, ...INDEX],
  rebase: [
    'pre-rebase',
    'post-rewrite',
    'post-checkout',
    'prepare-commit-msg',
    'commit-msg',
    'pre-commit',
    ...REF,
    ...INDEX,
  ],
  'cherry-pick': [
    'prepare-commit-msg',
    'commit-msg',
    'pre-commit',
    'post-commit',
    'post-rewrite',
    ...REF,
    ...INDEX,
  ],
  revert: ['prepare-commit-msg', 'commit-msg', 'pre-commit', 'post-commit', ...REF, ...INDEX],
  am: ['applypatch-msg', 'pre-applypatch', 'post-applypatch', 'post-rewrite', ...REF, ...INDEX],
  push: ['pre-push', ...REF],
  gc: ['pre-auto-gc', ...REF],
  fetch: ['pre-auto-gc', ...REF],
  worktree: ['post-checkout', ...REF, ...INDEX],
  clone: ['post-checkout', ...REF, ...INDEX],
  bisect: ['post-checkout', ...REF, ...INDEX],
};
/** Subcommands that only update refs or the index: the two hooks above. */
export const REF_AND_INDEX_HOOKS: readonly string[] = [...REF, ...INDEX];

/** The hooks among `names` present in `dir` as executable files (git skips `*.sample` and non-executables). */
export function presentHooks(dir: string, names: readonly string[]): string[] {
  const out: string[] = [];
  for (const n of names) {
    const p = `${dir}/${n}`;
    try {
      if (!statSync(p).isFile()) continue;
      accessSync(p, constants.X_OK);
      out.push(n);
    } catch {
      // absent or not executable: git does not run it
    }
  }
  return out;
}
