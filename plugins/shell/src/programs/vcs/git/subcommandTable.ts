import type { Field } from '../../../state/expandWord.js';
import type { GitCall, Plan } from './gitCall.js';
import {
  blame,
  checkIgnore,
  describe,
  diff,
  fsck,
  gitDirOnly,
  grep,
  hashObject,
  lsFiles,
  nothing,
  status,
} from './readSubcommands.js';
import { branch, config, housekeeping, network, notes, reflog, remote, tag } from './refSubcommands.js';
import { apply, archive, bisect, formatPatch, submodule, worktree } from './treeSubcommands.js';
import {
  add,
  checkout,
  clean,
  commit,
  integrate,
  mv,
  reset,
  restore,
  rm,
  stash,
} from './writeSubcommands.js';

export interface SubcommandEntry {
  run(g: GitCall, action: string, args: readonly Field[]): Plan;
  /** Takes an action word first (`stash pop`, `remote add`): options are parsed after it. */
  actions?: boolean;
  /** `-NUM` limits the count (`git log -5`). */
  numeric?: boolean;
}

const log: SubcommandEntry = { run: gitDirOnly, numeric: true };

/** Every subcommand we model; anything else (aliases, plumbing we do not know, `git-foo` on PATH) is uncertain. */
export const SUBCOMMANDS: Readonly<Record<string, SubcommandEntry>> = {
  log,
  show: log,
  whatchanged: log,
  'rev-list': log,
  'range-diff': { run: gitDirOnly },
  shortlog: { run: gitDirOnly, numeric: true },
  'rev-parse': { run: gitDirOnly },
  'cat-file': { run: gitDirOnly },
  'ls-tree': { run: gitDirOnly },
  'for-each-ref': { run: gitDirOnly },
  'show-ref': { run: gitDirOnly },
  'show-branch': { run: gitDirOnly },
  'merge-base': { run: gitDirOnly },
  'name-rev': { run: gitDirOnly },
  'count-objects': { run: gitDirOnly },
  'hash-object': { run: hashObject },
  fsck: { run: fsck },
  cherry: { run: gitDirOnly },
  'ls-remote': { run: network },
  status: { run: status },
  diff: { run: diff },
  grep: { run: grep },
  blame: { run: blame },
  'ls-files': { run: lsFiles },
  describe: { run: describe },
  'check-ignore': { run: checkIgnore },
  help: { run: nothing },
  version: { run: nothing },
  add: { run: add },
  commit: { run: commit },
  checkout: { run: checkout },
  switch: { run: checkout },
  restore: { run: restore },
  reset: { run: reset },
  merge: { run: integrate },
  pull: { run: integrate },
  rebase: { run: integrate },
  'cherry-pick': { run: integrate },
  revert: { run: integrate },
  am: { run: integrate },
  rm: { run: rm },
  mv: { run: mv },
  clean: { run: clean },
  stash: { run: (g, a) => stash(g, a || 'push'), actions: true },
  branch: { run: branch },
  tag: { run: tag },
  remote: { run: remote, actions: true },
  config: { run: config },
  fetch: { run: network },
  push: { run: network },
  gc: { run: housekeeping },
  reflog: { run: reflog, actions: true },
  notes: { run: notes, actions: true },
  'format-patch': { run: formatPatch, numeric: true },
  archive: { run: archive },
  apply: { run: apply },
  worktree: { run: worktree, actions: true },
  submodule: { run: submodule, actions: true },
  bisect: { run: (g, a, args) => bisect(g, a, args), actions: true },
};
