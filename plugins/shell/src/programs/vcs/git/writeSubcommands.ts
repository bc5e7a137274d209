import type { Field } from '../../../state/expandWord.js';
import { has, values } from '../../argv.js';
import type { GitCall, Plan } from './gitCall.js';
import { HOOKS, REF_AND_INDEX_HOOKS } from './hooks.js';
import { stashHasUntracked } from './stashUntracked.js';

// Subcommands that write the index, refs or the worktree. Which files they touch follows git's manual:
// `add -A` stages every file that is not ignored; commit refreshes the index (it lstat()s tracked files and
// reads those whose stat changed — seen under strace); checkout, merge and the like refuse to overwrite an
// untracked file that is not ignored but do overwrite ignored ones; `reset --hard` deletes untracked files
// in the way; clean removes untracked files (ignored ones only with -x/-X).

/** Strategies git ships; any other name runs `git-merge-NAME` from PATH. */
const STRATEGIES = new Set(['ort', 'recursive', 'resolve', 'octopus', 'ours', 'subtree']);

function strategies(g: GitCall): void {
  for (const s of values(g.p, '-s', '--strategy')) {
    if (!STRATEGIES.has(s.value)) g.uncertain(`merge strategy ${s.raw} runs git-merge-${s.value} from PATH`);
  }
}

/** Options that name files a writer reads (messages, templates, pathspec lists). */
function messageFiles(g: GitCall): void {
  for (const f of values(g.p, '-F', '--file', '-t', '--template', '--pathspec-from-file')) {
    if (f.value !== '-') g.path(f, 'read');
  }
}

export function add(g: GitCall): Plan {
  messageFiles(g);
  const force = has(g.p, '-f', '--force');
  const ops = g.p.operands;
  if (has(g.p, '-u', '--update')) {
    if (ops.length === 0) g.worktree('read', 'tracked');
    else g.pathspecs(ops, 'read', 'tracked');
  } else if (has(g.p, '-A', '--all', '--no-ignore-removal') && ops.length === 0) {
    g.worktree('read', force ? 'all' : 'unignored');
  } else {
    g.pathspecs(ops, 'read', force ? 'all' : 'unignored');
  }
  if (values(g.p, '--pathspec-from-file').length > 0) g.worktree('read', force ? 'all' : 'unignored');
  if (has(g.p, '-e', '--edit')) g.uncertain('--edit opens an editor on the patch');
  return { gitDir: 'write', risks: ['content', 'diff'], hooks: REF_AND_INDEX_HOOKS };
}

export function commit(g: GitCall): Plan {
  messageFiles(g);
  g.worktree('read', 'tracked');
  if (values(g.p, '--pathspec-from-file').length > 0 || g.p.operands.length > 0) {
    // `commit -i/-o PATHS` stages the named (tracked) files: covered by the tracked read above.
  }
  return { gitDir: 'write', risks: ['content', 'editor', 'sign', 'diff'], hooks: HOOKS.commit! };
}

/**
 * checkout/switch: `-b NEW` without a start point only moves HEAD; `checkout [TREE] -- PATHS` (or operands
 * that are existing paths, not refs) rewrites only those paths; switching to another commit rewrites the
 * tracked files. What the target commit adds, and an ignored file it happens to track, are not read from
 * git's objects here: like any file the commit brings, they are for the OS sandbox (see the README).
 */
export function checkout(g: GitCall, _action = '', args: readonly Field[] = []): Plan {
  messageFiles(g);
  const creates = has(g.p, '-b', '-B', '-c', '-C', '--create', '--force-create', '--orphan');
  const force = has(g.p, '-f', '--force', '--discard-changes');
  // A new branch from a remote-tracking start point records its upstream in the config (branch.autoSetupMerge).
  const gitDir = creates || has(g.p, '-t', '--track') ? 'tracking' : 'write';
  const plan: Plan = { gitDir, risks: ['content', 'merge'], hooks: HOOKS[g.sub] ?? HOOKS.checkout! };
  const dd = args.findIndex((f) => f.value === '--' && f.uncertain === undefined);
  const ops = g.p.operands;
  if (g.sub === 'checkout' && !creates) {
    // From the index only tracked files can come back; from a tree-ish, whatever that tree holds there.
    if (dd !== -1) {
      const fromTree = ops.some((f) => args.indexOf(f) < dd);
      g.pathspecs(args.slice(dd + 1), 'write', fromTree || force ? 'all' : 'tracked');
      return plan;
    }
    if (ops.length > 0 && ops.every((f) => isWorktreePath(g, f))) {
      g.pathspecs(ops, 'write', force ? 'all' : 'tracked');
      return plan;
    }
  }
  if (!(creates && ops.length === 0)) g.worktree('write', force ? 'all' : 'tracked');
  // Only moving HEAD: the index is refreshed, which reads tracked files whose stat changed (strace).
  else g.worktree('read', 'tracked');
  // Not a path checkout: HEAD names the branch switched to (or is detached).
  return { ...plan, moves: true };
}

/** An operand git reads as a path rather than a ref: it exists in the worktree and names no branch or tag. */
function isWorktreePath(g: GitCall, f: Field): boolean {
  if (f.uncertain !== undefined || f.glob >= 0 || f.value.startsWith(':')) return false;
  if (g.repo.hasRef(f.value)) return false;
  return g.cx.exists(g.at(f));
}

/** restore: the worktree copies of the pathspecs (tracked files), or only the index with `--staged`. */
export function restore(g: GitCall): Plan {
  messageFiles(g);
  const staged = has(g.p, '-S', '--staged');
  const worktree = has(g.p, '-W', '--worktree') || !staged;
  if (worktree) {
    if (g.p.operands.length === 0) g.worktree('write', 'tracked');
    else g.pathspecs(g.p.operands, 'write', 'tracked');
  }
  return { gitDir: 'write', risks: ['content', 'merge'], hooks: REF_AND_INDEX_HOOKS };
}

export function reset(g: GitCall): Plan {
  messageFiles(g);
  // --hard rewrites the tracked files (untracked and ignored ones stay, unless the commit tracks them).
  if (has(g.p, '--hard')) g.worktree('write', 'tracked');
  else if (has(g.p, '--merge', '--keep')) g.worktree('write', 'tracked');
  else if (!has(g.p, '--soft')) g.worktree('read', 'tracked');
  return { gitDir: 'write', risks: ['content'], hooks: REF_AND_INDEX_HOOKS };
}

/** merge, pull, cherry-pick, revert, am, rebase: rewrite tracked files, run commit hooks. */
export function integrate(g: GitCall): Plan {
  messageFiles(g);
  strategies(g);
  if (values(g.p, '-x', '--exec').length > 0 && g.sub === 'rebase')
    g.uncertain('--exec runs a command after each commit');
  if (g.sub === 'rebase' && has(g.p, '-i', '--interactive', '--edit-todo'))
    g.uncertain('an interactive rebase runs whatever its todo list (written in an editor) says');
  if (g.sub === 'am') for (const f of g.p.operands) g.path(f, 'read');
  if (values(g.p, '--upload-pack').length > 0) g.uncertain('--upload-pack runs a program');
  // --abort/--skip/--continue rewrite tracked files too. What the other commits add is not read from git's
  // objects (as for checkout).
  g.worktree('write', 'tracked');
  const network = g.sub === 'pull' ? (['network'] as const) : [];
  return {
    gitDir: g.sub === 'pull' && has(g.p, '--set-upstream') ? 'tracking' : 'write',
    stateDirs: ['rebase-merge', 'rebase-apply', 'sequencer'],
    risks: ['content', 'merge', 'editor', 'sign', ...network],
    hooks: HOOKS[g.sub] ?? HOOKS.merge!,
  };
}

/** rm: deletes the named tracked files (each a link operation), or only un-stages with `--cached`. */
export function rm(g: GitCall): Plan {
  messageFiles(g);
  // `rm --cached` keeps the file but compares it with the index first (it refuses to drop staged content
  // that matches neither HEAD nor the file): strace shows the file opened for reading.
  if (has(g.p, '--cached') && !has(g.p, '-n', '--dry-run')) g.pathspecs(g.p.operands, 'read', 'tracked');
  if (!has(g.p, '--cached', '-n', '--dry-run')) {
    for (const f of g.p.operands) {
      if (/[*?[]/.test(f.value) || f.value.startsWith(':')) g.worktree('write', 'tracked');
      else if (has(g.p, '-r')) g.pathspecs([f], 'write', 'tracked');
      else g.path(f, 'write', { followFinal: false });
    }
  }
  return { gitDir: 'write', risks: ['content'], hooks: REF_AND_INDEX_HOOKS };
}

/** mv: renames source and destination (a directory moves with everything in it). */
export function mv(g: GitCall): Plan {
  if (!has(g.p, '-n', '--dry-run')) {
    for (const f of g.p.operands) {
      if (g.isDirectory(f)) g.worktree('write', 'all', f);
      else g.path(f, 'write', { followFinal: false });
    }
  }
  return { gitDir: 'write', risks: ['content'], hooks: REF_AND_INDEX_HOOKS };
}

/** clean: removes untracked files (`-f`); without it (or with `-n`) only lists what it would remove. */
export function clean(g: GitCall): Plan {
  const ignored = has(g.p, '-x') ? 'also' : has(g.p, '-X') ? 'only' : undefined;
  const force = has(g.p, '-f', '--force') && !has(g.p, '-n', '--dry-run');
  if (has(g.p, '-i', '--interactive')) g.uncertain('interactive clean');
  const ops = g.p.operands;
  const op = force ? 'write' : 'list';
  if (ops.length === 0) g.worktree(op, 'untracked', undefined, ignored);
  else for (const f of ops) g.worktree(op, 'untracked', f, ignored);
  // What is untracked-and-not-ignored comes from the .gitignore files it reads on the way (tracked ones
  // are outside the untracked walk above).
  g.worktree('read', 'ignoreFiles');
  return { gitDir: 'read', risks: [], hooks: [] };
}

/** stash and its subcommands. */
export function stash(g: GitCall, action: string): Plan {
  const a = action;
  if (a === 'list' || a === 'show') return { gitDir: 'read', risks: ['pager', 'diff'], hooks: [] };
  if (a === 'drop' || a === 'clear' || a === 'create' || a === 'store')
    return { gitDir: 'write', risks: [], hooks: REF_AND_INDEX_HOOKS };
  if (a === 'apply' || a === 'pop' || a === 'branch') {
    g.worktree('write', 'tracked');
    // A stash made with -u/-a recreates untracked files too, under names only the stash holds (`.env`).
    const entry = g.p.operands.find((f) => !f.value.startsWith('-'));
    const u =
      entry?.uncertain !== undefined
        ? { uncertain: 'the stash entry is not known' }
        : stashHasUntracked(g.repo.commonDir, a === 'branch' ? g.p.operands[1]?.value : entry?.value);
    if (u === true) g.uncertain(`stash ${a}: the stash recreates untracked files whose names only it holds`);
    else if (u !== false) g.uncertain(`stash ${a}: ${u.uncertain}`);
  } else if (a === 'push' || a === 'save' || a.startsWith('-')) {
    for (const f of values(g.p, '--pathspec-from-file')) g.path(f, 'read');
    const all = has(g.p, '-a', '--all');
    const untracked = has(g.p, '-u', '--include-untracked');
    g.worktree('write', all ? 'all' : untracked ? 'unignored' : 'tracked');
  } else g.uncertain(`unknown stash action ${a}`);
  return { gitDir: 'write', risks: ['content', 'merge'], hooks: REF_AND_INDEX_HOOKS };
}
