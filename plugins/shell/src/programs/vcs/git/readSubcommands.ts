import { has, values } from '../../argv.js';
import type { GitCall, Plan } from './gitCall.js';
import { configValue, parseConfig } from './gitConfig.js';
import { REF_AND_INDEX_HOOKS } from './hooks.js';

// Subcommands that read the repository and, some of them, the worktree. Verified under
// `strace -f -e trace=%file` in a scratch repository (see the package README): log/show/rev-parse/branch
// open only `.git`; status and diff lstat() tracked files and open those whose stat changed; status lists
// untracked directories (getdents) without opening their files.

const LOG_RISKS = ['pager', 'diff', 'sign'] as const;

/** Only the git dir: history, refs, objects. */
export function gitDirOnly(g: GitCall): Plan {
  if (g.sub === 'log' || g.sub === 'show' || g.sub === 'whatchanged' || g.sub === 'range-diff')
    diffOutputs(g);
  return { gitDir: 'read', risks: LOG_RISKS, hooks: [] };
}

/** `--output=F` writes the diff to F; `-O F` reads an order file. */
export function diffOutputs(g: GitCall): void {
  for (const f of values(g.p, '--output')) g.path(f, 'write');
  for (const f of values(g.p, '-O')) g.path(f, 'read');
}

/**
 * How status shows untracked files: `-u`/`--untracked-files` first, then `status.showUntrackedFiles` of the
 * repository's config, the user's (`~/.gitconfig`, `~/.config/git/config`) and the system's; `unknown` when a
 * `-c`, an include or an unreadable file could say otherwise. `normal` is git's default.
 */
function untrackedMode(g: GitCall): 'no' | 'normal' | 'all' | 'unknown' {
  const of = (v: string | undefined) =>
    v === undefined
      ? undefined
      : v === 'no' || v === 'false'
        ? 'no'
        : v === 'normal' || v === 'true'
          ? 'normal'
          : 'all';
  const opt = g.p.opts.find((o) => o.name === '-u' || o.name === '--untracked-files');
  // `-u` alone means `all` (git-status(1)).
  if (opt) return opt.value === undefined ? 'all' : (of(opt.value.value) ?? 'all');
  if (g.cx.args.some((f) => f.value === '-c' || f.value.startsWith('--config-env'))) return 'unknown';
  if (g.repo.configUncertain) return 'unknown';
  const files = [
    g.repo.config,
    ...['~/.gitconfig', '~/.config/git/config', '/etc/gitconfig'].map((path) => {
      const f = { value: path, raw: path, glob: -1, tilde: path.startsWith('~') };
      if (!g.cx.exists(f)) return [];
      const r = g.cx.readContent(f, 256 * 1024);
      return 'uncertain' in r ? null : parseConfig(r.text);
    }),
  ];
  for (const entries of files) {
    if (entries === null) return 'unknown';
    if (entries.some((e) => e.key === 'include.path' || e.key.startsWith('includeif.'))) return 'unknown';
    const v = of(configValue(entries, 'status.showuntrackedfiles')?.toLowerCase());
    if (v !== undefined) return v;
  }
  return 'normal';
}

/** status: lists the worktree (not ignored dirs), reads tracked files whose stat changed. */
export function status(g: GitCall): Plan {
  const mode = untrackedMode(g);
  // Default mode: an untracked directory is shown as "dir/" only, so listing it reveals nothing its parent's
  // listing does not; a denied directory beneath the worktree does not make `git status` a read of it.
  if (mode !== 'no')
    g.worktree('list', has(g.p, '--ignored') ? 'all' : mode === 'normal' ? 'statusNormal' : 'unignored');
  g.worktree('read', 'tracked');
  // It refreshes the index when it can take the lock: strace shows index.lock written and renamed over the
  // index. An optional write the OS may refuse, but a policy's refusal does not stop it: judged as a write,
  // unless `git --no-optional-locks` turns it off.
  return { gitDir: optionalLocks(g), risks: ['content'], hooks: REF_AND_INDEX_HOOKS };
}

/**
 * diff: the worktree's tracked files unless comparing the index or commits only; `--no-index` (or a path
 * outside the repository, which implies it) compares two paths of the filesystem.
 */
export function diff(g: GitCall): Plan {
  diffOutputs(g);
  const ops = g.p.operands;
  const dashdash = g.cx.args.some((f) => f.value === '--');
  const outside = ops.length === 2 && !dashdash && ops.some((f) => g.repo.missing || f.value.startsWith('/'));
  if (has(g.p, '--no-index') || outside) {
    // Two directories are compared recursively; files (and /dev/null) are read as they are.
    for (const f of ops) g.path(f, 'read', g.isDirectory(f) ? { scope: 'subtree' } : {});
    return { gitDir: 'none', risks: ['diff', 'pager'], hooks: [] };
  }
  if (has(g.p, '--cached', '--staged'))
    return { gitDir: 'read', risks: ['content', 'diff', 'pager'], hooks: [] };
  g.worktree('read', 'tracked');
  // The index against the worktree: only index entries can be named (against a commit, or --cached, a file
  // the index no longer has — an untracked .env now — can be).
  if (has(g.p, '--name-only') && ops.length === 0 && !dashdash && !has(g.p, '--output'))
    g.printsTracked('root', has(g.p, '-z'));
  // Comparing the worktree refreshes the index, as status does.
  return { gitDir: optionalLocks(g), risks: ['content', 'diff', 'pager'], hooks: [] };
}

/** `git --no-optional-locks` (or GIT_OPTIONAL_LOCKS=0 in the command's own prefix) skips the index refresh. */
function optionalLocks(g: GitCall): 'read' | 'write' {
  return g.cx.args.some((f) => f.value === '--no-optional-locks') ? 'read' : 'write';
}

/** grep: tracked files by default; `--untracked` adds unignored ones; `--no-index` searches the cwd. */
export function grep(g: GitCall): Plan {
  for (const f of values(g.p, '-f')) g.path(f, 'read');
  if (g.p.opts.some((o) => o.name === '-O' || o.name === '--open-files-in-pager'))
    g.uncertain('-O runs a program on the matching files');
  if (has(g.p, '--no-index')) {
    g.path({ value: '.', raw: '.', glob: -1, tilde: false }, 'read', { scope: 'subtree' });
    return { gitDir: 'none', risks: ['pager'], hooks: [] };
  }
  if (!has(g.p, '--cached')) g.worktree('read', has(g.p, '--untracked') ? 'unignored' : 'tracked');
  return { gitDir: 'read', risks: ['content', 'diff', 'pager'], hooks: [] };
}

/** blame F: history plus the working copy of F (through the content filters); `--contents F` reads F. */
export function blame(g: GitCall): Plan {
  for (const f of values(g.p, '--contents', '--ignore-revs-file', '-S')) g.path(f, 'read');
  const file = g.p.operands.at(-1);
  if (file) g.path(file, 'read');
  return { gitDir: 'read', risks: ['content', 'diff', 'pager'], hooks: [] };
}

/** ls-files: the index; `-o` walks the worktree for names, `-m`/`-d`/`-k` lstat tracked files. */
export function lsFiles(g: GitCall): Plan {
  for (const f of values(g.p, '-X', '--exclude-from')) g.path(f, 'read');
  if (has(g.p, '-o', '--others')) g.worktree('list', has(g.p, '--exclude-standard') ? 'unignored' : 'all');
  if (has(g.p, '-m', '--modified', '-d', '--deleted', '-k', '--killed')) g.worktree('list', 'tracked');
  // Index entries, one a line (or NUL-terminated), relative to the cwd: paths a pipe may hand on. Options
  // that print other files or more than the path (stage, tags, formats, --full-name) do not.
  const other = g.p.opts.some(
    (o) => !['-c', '--cached', '-m', '--modified', '-d', '--deleted', '-z'].includes(o.name),
  );
  if (!other) g.printsTracked('cwd', has(g.p, '-z'));
  return { gitDir: 'read', risks: ['content'], hooks: [] };
}

/** describe: history; `--dirty`/`--broken` also checks the worktree's tracked files. */
export function describe(g: GitCall): Plan {
  if (has(g.p, '--dirty', '--broken')) g.worktree('read', 'tracked');
  return { gitDir: 'read', risks: ['content'], hooks: [] };
}

/** check-ignore: reads the ignore files along each path (names only beneath the worktree). */
export function checkIgnore(g: GitCall): Plan {
  g.worktree('list', 'all');
  return { gitDir: 'read', risks: [], hooks: [] };
}

/** Nothing of the repository (help, version). */
export function nothing(): Plan {
  return { gitDir: 'none', risks: [], hooks: [] };
}

/**
 * hash-object: reads the files named (through the clean filters of `.gitattributes` unless `--no-filters`:
 * the `content` risk); `-w` writes the object database. `--stdin-paths` takes the paths from stdin.
 */
export function hashObject(g: GitCall): Plan {
  if (has(g.p, '--stdin-paths')) g.uncertain('hash-object --stdin-paths reads the paths from stdin', 'read');
  for (const f of g.p.operands) g.path(f, 'read');
  return {
    gitDir: has(g.p, '-w') ? 'write' : 'read',
    risks: has(g.p, '--no-filters') ? [] : ['content'],
    hooks: [],
  };
}

/** fsck: reads the object database; `--lost-found` writes what it finds into `.git/lost-found`. */
export function fsck(g: GitCall): Plan {
  return { gitDir: has(g.p, '--lost-found') ? 'write' : 'read', risks: [], hooks: [] };
}
