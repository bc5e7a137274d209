import { posix } from 'node:path';
import type { SubtreeFilter } from '@toolgate/core';
import { Minimatch } from 'minimatch';
import type { CommandContext } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import type { ParsedArgs } from '../argv.js';
import { findRepo } from '../vcs/git/gitRepo.js';
import { loadRepoState } from '../vcs/git/repoState.js';

/**
 * What ripgrep skips beneath a directory it searches, from its documentation (rg(1), GUIDE.md "Automatic
 * filtering"): hidden files and directories unless `--hidden`/`-.`/`-uu`; files its ignore rules match —
 * `.gitignore`, `.git/info/exclude` and the global excludes file, inside a git repository — unless
 * `--no-ignore`/`--no-ignore-vcs`/`-u`. Its own `.ignore`/`.rgignore` files only skip more, so they are not
 * read. `-g GLOB` overrides all of that for the files it names ("this always overrides any other ignore
 * logic"): with a positive glob, only files matching one are searched, hidden or ignored or not; a glob
 * with a slash, or a value not known, gives no filter (every entry judged).
 */
export function rgFilter(
  opts: ParsedArgs['opts'],
  cx: CommandContext,
  root: Field,
): SubtreeFilter | undefined {
  const named = (...names: string[]) => opts.filter((o) => names.includes(o.name));
  const globs = named('-g', '--glob', '--iglob');
  if (globs.some((o) => o.value === undefined || o.value.uncertain !== undefined)) return undefined;
  const positive = globs.filter((o) => !o.value!.value.startsWith('!'));
  if (positive.length > 0) {
    if (positive.some((o) => o.value!.value.includes('/'))) return undefined;
    const ms = positive.map(
      (o) => new Minimatch(o.value!.value, { dot: true, nocase: o.name === '--iglob', nonegate: true }),
    );
    return {
      name: `rg -g ${positive.map((o) => o.value!.value).join(' ')}`,
      skips: (rel, isDir) => !isDir && !ms.some((m) => m.match(posix.basename(rel))),
    };
  }
  const u = named('-u', '--unrestricted').length;
  const hidden = u >= 2 || named('--hidden', '-.').length > 0;
  const noIgnore = u >= 1 || named('--no-ignore', '--no-ignore-vcs').length > 0;
  const rules = noIgnore ? null : ignoreRules(cx, root);
  if (hidden && rules === null) return undefined;
  return {
    name: `rg's default filtering${hidden ? '' : ' (hidden)'}${rules ? ' (gitignore)' : ''}`,
    skips(rel, isDir) {
      if (!hidden && posix.basename(rel).startsWith('.')) return true;
      if (rules === null) return false;
      return rules.ignored(rules.prefix === '' ? rel : `${rules.prefix}/${rel}`, isDir) === true;
    },
  };
}

/** The repository's ignore rules for a search rooted at `root`, with its path relative to the worktree. */
function ignoreRules(
  cx: CommandContext,
  root: Field,
): { prefix: string; ignored(rel: string, isDir: boolean): boolean | 'unknown' } | null {
  const real = cx.resolveDir(root);
  if (real === null) return null;
  const repo = findRepo(real);
  if (repo === null || repo.missing || repo.worktree === null) return null;
  const prefix = posix.relative(repo.worktree, real);
  if (prefix.startsWith('..')) return null;
  const rules = loadRepoState(cx, repo).ignore();
  if (rules === null) return null;
  return { prefix, ignored: (rel, isDir) => rules.ignored(rel, isDir) };
}
