import type { SubtreeFilter } from '@toolgate/core';
import type { Field } from '../../state/expandWord.js';
import { fnmatch } from '../fnmatch.js';

/** One test of find's expression that a walk can evaluate from a path and whether it is a directory. */
type Test = (path: string, base: string, isDir: boolean) => boolean;

/** Tests that never open a file and are cheap to evaluate in the walk; any other test counts as true. */
function test(primary: string, arg: Field | undefined): Test | 'true' | null {
  if (arg === undefined || arg.uncertain !== undefined) return null;
  switch (primary) {
    case '-name':
    case '-iname': {
      const re = fnmatch(arg.value, primary === '-iname');
      return (_p, base) => re.test(base);
    }
    case '-path':
    case '-wholename':
    case '-ipath':
    case '-iwholename': {
      const re = fnmatch(arg.value, primary.startsWith('-i'));
      return (p) => re.test(p);
    }
    case '-type':
    case '-xtype':
      // The walk knows directories from everything else; `-type f` or `l` match any non-directory.
      if (arg.value === 'd') return (_p, _b, isDir) => isDir;
      if (!arg.value.includes('d')) return (_p, _b, isDir) => !isDir;
      return 'true';
    default:
      return 'true';
  }
}

/** Primaries with one argument that only narrow what an action sees (counted as true). */
const NARROWING_WITH_ARG = new Set([
  '-amin',
  '-atime',
  '-cmin',
  '-ctime',
  '-mmin',
  '-mtime',
  '-size',
  '-perm',
  '-user',
  '-group',
  '-uid',
  '-gid',
  '-links',
  '-inum',
  '-maxdepth',
  '-mindepth',
  '-regex',
  '-iregex',
  '-regextype',
  '-lname',
  '-ilname',
  '-newer',
  '-anewer',
  '-cnewer',
  '-samefile',
  '-fstype',
  '-used',
  '-context',
]);
/** Primaries without an argument that are always true or only narrow. */
const NARROWING = new Set([
  '-print',
  '-print0',
  '-ls',
  '-empty',
  '-readable',
  '-writable',
  '-executable',
  '-true',
  '-nouser',
  '-nogroup',
  '-mount',
  '-xdev',
  '-depth',
  '-d',
  '-noleaf',
  '-ignore_readdir_race',
  '-daystart',
  '-follow',
  '-a',
  '-and',
]);

/**
 * find's tests as a walk filter. `printsLinks: false`: a `-type` test without `l` (find -P, the default:
 * `-type` is the entry's own type, so a symlink is never `f` or `d`) — no path handed on is a link, so a
 * program given them opens no link's target (strace: `find . -type f | xargs cat` never opens one).
 */
export type FindFilter = SubtreeFilter & { readonly printsLinks?: false };

/**
 * A filter for the entries an action of find (`-delete`, `-exec … {}`) can reach, from the tests before it:
 * `find . -name '*.pyc' -delete` removes only `*.pyc` entries, so a `.env` beside them is not judged (a false
 * deny before). Only a plain conjunction is read — `-name`, `-iname`, `-path`, `-type` and their negation by
 * `!`/`-not`; tests it cannot evaluate count as true (so it only skips less). Any `-o`, `,`, parentheses or
 * `-prune` before the action: no filter. An entry is kept when it or one of its ancestors matches, since
 * `-exec rm -rf {}` on a matched directory reaches everything beneath it; directories are never skipped.
 */
export function findActionFilter(
  expr: readonly Field[],
  actionAt: number,
  start: Field,
  /** `-L`/`-follow`: `-type` is the type of what a link leads to, so links are handed on. */
  follow = true,
): FindFilter | undefined {
  const tests: { t: Test; negated: boolean }[] = [];
  let negate = false;
  // `-type f` (any type list without `l`) in the conjunction: find -P never hands the action a symlink.
  let noLinks = false;
  for (let j = 0; j < actionAt; j++) {
    const f = expr[j]!;
    if (f.uncertain !== undefined) return undefined;
    const v = f.value;
    if (v === '!' || v === '-not') {
      negate = !negate;
      continue;
    }
    if (v === '-o' || v === '-or' || v === ',' || v === '(' || v === ')' || v === '-prune') return undefined;
    if (NARROWING.has(v)) {
      negate = false;
      continue;
    }
    if (NARROWING_WITH_ARG.has(v) || /^-newer[aBcm][aBcmt]$/.test(v)) {
      j++;
      negate = false;
      continue;
    }
    const t = test(v, expr[j + 1]);
    if (t === null) return undefined;
    if (v === '-type' && !negate && !expr[j + 1]!.value.includes('l')) noLinks = true;
    j++;
    if (t !== 'true') tests.push({ t, negated: negate });
    negate = false;
  }
  if (tests.length === 0 || start.uncertain !== undefined) return undefined;
  const prefix = start.value.replace(/\/+$/, '') || '/';
  const matches = (rel: string, isDir: boolean): boolean => {
    const path = prefix === '/' ? `/${rel}` : `${prefix}/${rel}`;
    const base = rel.slice(rel.lastIndexOf('/') + 1);
    return tests.every(({ t, negated }) => t(path, base, isDir) !== negated);
  };
  return {
    ...(noLinks && !follow ? { printsLinks: false as const } : {}),
    name: `find's tests before the action (${expr
      .slice(0, actionAt)
      .map((f) => f.raw)
      .join(' ')})`,
    skips(rel, isDir) {
      if (isDir) return false;
      if (matches(rel, false)) return false;
      for (let end = rel.indexOf('/'); end !== -1; end = rel.indexOf('/', end + 1))
        if (matches(rel.slice(0, end), true)) return false;
      return true;
    },
  };
}
