import type { SubtreeFilter } from '@toolgate/core';
import type { Field } from '../../state/expandWord.js';
import { has, type ParsedArgs, values } from '../argv.js';
import { wildcardSource } from '../fnmatch.js';

/**
 * What `--exclude PATTERN` leaves out of a recursive rsync source, as rsync(1) matches it against the names
 * of the transfer (a source without a trailing slash transfers the directory itself: `src/a.ts`; with one,
 * its contents: `a.ts`): a pattern without `/` matches any name component, one with a leading `/` is
 * anchored at the transfer's root, any other is matched against the end of the path; a trailing `/` matches
 * directories only. An excluded directory is not descended. Only plain `--exclude` lists are read: an
 * `--include`, `--filter`, `-F`, or a pattern list from a file may bring back what an exclude leaves out,
 * so then nothing is skipped.
 */
export function rsyncFilter(p: ParsedArgs, source: Field): SubtreeFilter | undefined {
  const excludes = values(p, '--exclude');
  if (excludes.length === 0 || source.uncertain !== undefined) return undefined;
  if (
    values(p, '--include', '--filter', '-f', '--include-from', '--exclude-from', '--files-from').length > 0 ||
    has(p, '-F') ||
    excludes.some((f) => f.uncertain !== undefined || f.value === '' || /^[-+] |^[-+!]$/.test(f.value))
  )
    return undefined;
  const root = source.value.endsWith('/') ? '' : source.value.replace(/\/+$/, '').split('/').pop() || '';
  const tests = excludes.map((f) => {
    const dirOnly = f.value.endsWith('/');
    const pat = f.value.replace(/\/+$/, '');
    const anchored = pat.startsWith('/');
    const full = anchored || pat.includes('/') || pat.includes('**');
    // rsync(1) "INCLUDE/EXCLUDE PATTERN RULES": `*` stops at `/`, `**` does not.
    const body = wildcardSource(anchored ? pat.slice(1) : pat, false);
    const re = new RegExp(anchored ? `^${body}$` : full ? `(^|/)${body}$` : `^${body}$`);
    return (path: string, isDir: boolean) =>
      (!dirOnly || isDir) && re.test(full ? path : path.slice(path.lastIndexOf('/') + 1));
  });
  return {
    name: `rsync ${excludes.map((f) => `--exclude=${f.raw}`).join(' ')}`,
    skips(rel, isDir) {
      const path = root === '' || root === '.' ? rel : `${root}/${rel}`;
      return tests.some((t) => t(path, isDir));
    },
  };
}
