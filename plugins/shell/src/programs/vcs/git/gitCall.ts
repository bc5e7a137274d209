import { statSync } from 'node:fs';
import { posix } from 'node:path';
import type { Op } from '@toolgate/core';
import type { CommandContext, EmitOptions } from '../../../effects/extractTypes.js';
import type { Field } from '../../../state/expandWord.js';
import type { ParsedArgs } from '../../argv.js';
import { literal } from '../../spec.js';
import type { RiskGroup } from './configRisks.js';
import type { RepoState } from './repoState.js';
import { type WorktreeFilterKind, worktreeFilter } from './subtreeFilters.js';

/** How a subcommand touches the worktree beneath some directory: `all` judges every entry. */
export type WorktreeUse = WorktreeFilterKind | 'all';

/** Tags of git's own writes the network model tells apart (an access's origin ends with `git:<tag>`). */
export const TRACKING_TAG = 'git-tracking';
export const HEAD_TAG = 'git-head';

/** What one git subcommand does, beyond the accesses its handler emits itself. */
export interface Plan {
  /**
   * `write`: the index, objects, refs and logs (and `stateDirs`), never the config or hooks — so a later git
   * command of the same line still trusts them; `tracking`: that, and the config's `branch.*` sections only
   * (upstream tracking: `checkout -b`, `branch -u`, `push -u`), which never change a remote's URL;
   * `config`: the whole git dir, config included.
   */
  gitDir: 'read' | 'write' | 'tracking' | 'config' | 'none';
  /**
   * HEAD names another branch afterwards (`checkout`/`switch` to a branch, `branch -m`, `bisect`): a later
   * `git push` or `fetch` without a remote takes the remote of *that* branch.
   */
  moves?: boolean;
  /** Directories of the git dir a writer keeps its state in (`rebase-merge`, `sequencer`, `worktrees`…). */
  stateDirs?: readonly string[];
  /** Code-running config groups the subcommand reaches (`always` is added for every subcommand). */
  risks: readonly RiskGroup[];
  /** Hooks it may run. */
  hooks: readonly string[];
}

/** Everything a subcommand handler needs: its parsed options, the repository, emit helpers. */
export class GitCall {
  constructor(
    readonly cx: CommandContext,
    readonly sub: string,
    readonly p: ParsedArgs,
    /** `-C` directories composed, unresolved: operands are relative to it. */
    readonly base: Field,
    readonly repo: RepoState,
  ) {}

  /** An operand as git sees it: relative to `-C`. */
  at(f: Field): Field {
    if (f.value.startsWith('/') || f.tilde || f.uncertain !== undefined || this.base.value === '.') return f;
    return { ...f, value: `${this.base.value}/${f.value}` };
  }

  path(f: Field, op: Op, o: EmitOptions = {}): void {
    this.cx.emit(this.at(f), op, { tag: this.sub, ...o });
  }

  /** A path relative to the worktree root (patch targets), or the cwd outside a repository. */
  rootPath(rel: string, op: Op): void {
    const root = this.repo.missing ? null : this.repo.worktree;
    if (root === null) this.path(literal(rel), op);
    else this.cx.emit(literal(posix.join(root, rel)), op, { tag: this.sub });
  }

  /**
   * A subtree access on the worktree (or beneath `under`, an operand), filtered to what git touches there.
   * Outside the worktree (git will refuse) the access is judged in full.
   */
  worktree(op: Op, use: WorktreeUse, under?: Field, ignored?: 'also' | 'only'): void {
    const root = this.repo.worktree;
    if (root === null) return;
    let target: Field = literal(root);
    let prefix = '';
    if (under !== undefined) {
      const real = this.cx.resolveDir(this.at(under));
      if (real === null) {
        this.path(under, op, { scope: 'subtree' });
        return;
      }
      const rel = posix.relative(root, real);
      if (rel.startsWith('..') || posix.isAbsolute(rel)) {
        this.path(under, op, { scope: 'subtree' });
        return;
      }
      target = literal(real);
      prefix = rel;
    }
    // Which files are tracked decides what git touches; when an earlier command of the line may have changed
    // the index (`npm test; git status`: the tests could have `git add -f .env`), it is not known — the
    // access is uncertain (the sandbox confines it), not every file for certain (a false deny of `.env`).
    const changed = use === 'all' || this.repo.missing ? undefined : this.repo.trackedChanged();
    if (changed !== undefined) {
      this.uncertain(changed, op);
      return;
    }
    const filter =
      use === 'all' || this.repo.missing
        ? undefined
        : worktreeFilter({
            kind: use,
            prefix,
            tracked: this.repo.tracked(),
            ignore: this.repo.ignore(op === 'write'),
            ignored,
            name: `git ${this.sub}: ${use} files of ${root}`,
          });
    this.cx.emit(target, op, { scope: 'subtree', tag: `${this.sub}:worktree`, filter });
  }

  /**
   * Pathspec operands: a plain path that is an existing directory becomes a filtered subtree beneath it, a
   * plain file an access of its own; a pathspec with glob characters or magic (`*.ts`, `:(glob)…`) matches
   * anywhere in the worktree, so the whole filtered worktree is judged.
   */
  pathspecs(ops: readonly Field[], op: Op, use: WorktreeUse): void {
    for (const f of ops) {
      if (f.uncertain !== undefined || /[*?[]/.test(f.value) || f.value.startsWith(':')) {
        this.worktree(op, use);
        continue;
      }
      const real = this.cx.resolveDir(this.at(f));
      // `.`, `..` and `x/` name directories whatever the filesystem says now.
      let dir = f.value === '.' || f.value === '..' || f.value.endsWith('/');
      try {
        dir ||= real !== null && statSync(real).isDirectory();
      } catch {
        // does not exist (yet): a single path
      }
      if (dir) this.worktree(op, use, f);
      else {
        this.path(f, op);
        // Matching a pathspec reads the names of the directory it lies in (strace: `git add README.md`
        // lists the worktree root): a list of that directory, never of the files in it.
        this.cx.emit(this.at({ ...f, value: posix.dirname(f.value), glob: -1 }), 'list', { tag: this.sub });
      }
    }
  }

  /**
   * This subcommand prints tracked paths — beneath the cwd and relative to it (`ls-files`), or relative to the
   * worktree root (`diff --name-only`: only when run from the root) — one a line or NUL-terminated: a pipe's
   * next command may take them (`git ls-files '*.ts' | xargs wc -l`). Only when every tracked name there
   * prints as itself: git quotes names with blanks, quotes, backslashes or non-ASCII bytes (core.quotePath),
   * which xargs would split or read differently.
   */
  printsTracked(relativeTo: 'cwd' | 'root', nul: boolean): void {
    const root = this.repo.worktree;
    const tracked = this.repo.tracked();
    if (root === null || tracked === null || this.base.value !== '.' || this.repo.missing) return;
    const cwd = this.cx.resolveDir(literal('.'));
    if (cwd === null) return;
    const prefix = posix.relative(root, cwd);
    if (prefix.startsWith('..') || posix.isAbsolute(prefix) || (relativeTo === 'root' && prefix !== ''))
      return;
    const within = prefix === '' ? '' : `${prefix}/`;
    // A name starting with `-` (printed as it is, no `./`) is an option to the command that takes it.
    for (const name of tracked.files)
      if (name.startsWith(within) && (/[\s'"\\*?[]|[^\x20-\x7e]/.test(name) || name[within.length] === '-'))
        return;
    if (tracked.submodules.length > 0) return;
    const filter = worktreeFilter({
      kind: 'tracked',
      prefix,
      tracked,
      ignore: null,
      name: `git ${this.sub}: tracked files of ${root}`,
    });
    if (filter === undefined) return;
    this.cx.printsPaths({ roots: [literal(cwd)], filters: [filter], nul, checked: true });
  }

  /** Whether an operand is an existing directory (after `-C`). */
  isDirectory(f: Field): boolean {
    const real = this.cx.resolveDir(this.at(f));
    try {
      return real !== null && statSync(real).isDirectory();
    } catch {
      return false;
    }
  }

  uncertain(reason: string, op: Op = 'write'): void {
    this.cx.uncertain(`git ${this.sub}: ${reason}`, op);
  }
}
