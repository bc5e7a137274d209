import type { SubtreeFilter } from '@toolgate/core';
import type { Field } from '../../../state/expandWord.js';
import { has, values } from '../../argv.js';
import { missing } from '../../files/patch.js';
import type { GitCall, Plan } from './gitCall.js';
import { HOOKS, REF_AND_INDEX_HOOKS } from './hooks.js';
import { patchTargets } from './patchTargets.js';

// Subcommands that create trees of files elsewhere (worktree add, archive, format-patch), apply patches,
// or drive other subcommands (bisect, submodule).

/** format-patch writes `NNNN-subject.patch` files (or numbered ones) into its output directory only. */
const PATCH_FILES: SubtreeFilter = {
  name: 'format-patch output files',
  skips: (rel, isDir) => isDir || !/^\d+(-[^/]*)?$/.test(rel),
};

export function formatPatch(g: GitCall): Plan {
  for (const f of values(g.p, '--signature-file')) g.path(f, 'read');
  for (const f of values(g.p, '--output')) g.path(f, 'write');
  if (!has(g.p, '--stdout')) {
    const dir = values(g.p, '-o', '--output-directory')[0] ?? {
      value: '.',
      raw: '.',
      glob: -1,
      tilde: false,
    };
    g.path(dir, 'write', { scope: 'subtree', filter: PATCH_FILES });
  }
  return { gitDir: 'read', risks: ['diff'], hooks: [] };
}

export function archive(g: GitCall): Plan {
  if (values(g.p, '--exec').length > 0) g.uncertain('--exec runs a program');
  for (const f of values(g.p, '-o', '--output')) g.path(f, 'write');
  for (const f of values(g.p, '--add-file')) g.path(f, 'read');
  const remote = values(g.p, '--remote').length > 0;
  return { gitDir: 'read', risks: remote ? ['network'] : ['content'], hooks: [] };
}

/**
 * apply: reads each patch and writes the files its headers name (relative to the worktree root in a
 * repository, as git does; `--directory` prefixes them). `--check`/`--stat`/`--numstat`/`--summary` alone
 * write nothing; `--cached` writes only the index. A patch from stdin names files we cannot see.
 */
export function apply(g: GitCall): Plan {
  const reportOnly =
    has(g.p, '--check', '--stat', '--numstat', '--summary') && !has(g.p, '--apply', '--index', '--cached');
  const cached = has(g.p, '--cached');
  const index = has(g.p, '--index', '-3', '--3way');
  for (const f of values(g.p, '--build-fake-ancestor')) g.path(f, 'write');
  const patches = g.p.operands.length > 0 ? g.p.operands : [];
  const strip = Number(values(g.p, '-p')[0]?.value ?? '1');
  const prefix = values(g.p, '--directory')[0];
  if (prefix?.uncertain !== undefined) g.uncertain('--directory is not known');
  if (patches.length === 0 || patches.some((f) => f.value === '-')) {
    if (!reportOnly && !cached) g.uncertain('the patch comes from stdin: its files cannot be seen');
  }
  for (const f of patches) {
    if (f.value === '-') continue;
    g.path(f, 'read');
    if (reportOnly || cached) continue;
    const content = g.cx.readContent(g.at(f));
    if ('uncertain' in content) {
      // No such patch: git apply fails before writing. One that appears before the run changes files of the
      // worktree only (git refuses paths outside it): judged over what is there now.
      if (missing(g.cx, g.at(f), content.uncertain)) {
        if (g.repo.worktree === null)
          g.path({ value: '.', raw: '.', glob: -1, tilde: false }, 'write', { scope: 'subtree' });
        else g.worktree('write', 'all');
      } else g.uncertain(`cannot read the patch ${f.raw}: ${content.uncertain}`);
      continue;
    }
    const targets = Number.isInteger(strip) && strip >= 0 ? patchTargets(content.text, strip) : null;
    if (targets === null) {
      g.uncertain(`cannot read every file name in ${f.raw}`);
      continue;
    }
    for (const t of targets) {
      const rel = prefix ? `${prefix.value.replace(/\/+$/, '')}/${t}` : t;
      g.rootPath(rel, 'write');
      if (has(g.p, '--reject')) g.rootPath(`${rel}.rej`, 'write');
    }
  }
  const touchesIndex = cached || index;
  return {
    gitDir: touchesIndex ? 'write' : g.repo.missing ? 'none' : 'read',
    risks: ['content', 'merge'],
    hooks: touchesIndex ? REF_AND_INDEX_HOOKS : [],
  };
}

/** worktree ACTION: `add`/`move`/`remove` write the directories they name. */
export function worktree(g: GitCall, action: string): Plan {
  const ops = g.p.operands;
  if (action === 'list') return { gitDir: 'read', risks: [], hooks: [] };
  if (action === 'add' && ops[0]) g.path(ops[0], 'write', { scope: 'subtree' });
  else if (action === 'remove' || action === 'move')
    for (const f of ops) g.path(f, 'write', { scope: 'subtree' });
  else if (!['prune', 'lock', 'unlock', 'repair'].includes(action))
    g.uncertain(`unknown worktree action ${action}`);
  return {
    gitDir: 'write',
    stateDirs: ['worktrees'],
    risks: ['content'],
    hooks: action === 'add' ? HOOKS.worktree! : REF_AND_INDEX_HOOKS,
  };
}

/** submodule ACTION: `foreach` runs a command; update/add/init clone and check out into the worktree. */
export function submodule(g: GitCall, action: string): Plan {
  if (action === 'foreach') {
    g.uncertain('submodule foreach runs a command in each submodule');
    return { gitDir: 'write', risks: [], hooks: [] };
  }
  if (action === '' || action === 'status' || action === 'summary')
    return { gitDir: 'read', risks: ['content'], hooks: [] };
  // update/add/init/deinit/sync/absorbgitdirs/set-branch/set-url: submodules are checked out beneath.
  g.worktree('write', 'all');
  // Submodules are registered in the config and cloned into .git/modules.
  return { gitDir: 'config', risks: ['network', 'content', 'merge'], hooks: HOOKS.clone! };
}

/** bisect ACTION: `run` runs a command; the marking actions check out commits. */
export function bisect(g: GitCall, action: string, rest: readonly Field[]): Plan {
  if (action === 'run') {
    g.uncertain('bisect run runs a command at each step');
    return { gitDir: 'write', risks: [], hooks: [] };
  }
  if (['log', 'visualize', 'view', 'terms', 'help'].includes(action))
    return { gitDir: 'read', risks: ['pager'], hooks: [] };
  if (action === 'replay') for (const f of rest) g.path(f, 'read');
  // `start` checks out only once it has a bad and a good revision (git-bisect(1)); like checkout, the
  // steps write the tracked files.
  const revisions = rest
    .slice(0, rest.findIndex((f) => f.value === '--') >>> 0)
    .filter((f) => !f.value.startsWith('-'));
  const checksOut =
    action === 'start'
      ? !rest.some((f) => f.value === '--no-checkout') &&
        (revisions.length >= 2 || rest.some((f) => f.uncertain !== undefined))
      : true;
  if (checksOut) g.worktree('write', 'tracked');
  return { gitDir: 'write', moves: true, risks: ['content'], hooks: HOOKS.bisect! };
}
