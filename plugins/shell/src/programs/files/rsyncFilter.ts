import type { SubtreeFilter } from '@toolgate/core';
import type { CommandContext } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { has, type ParsedArgs, values } from '../argv.js';
import { wildcardSource } from '../fnmatch.js';

/** An `--exclude-from` list larger than this is not read: no filter. */
const MAX_LIST = 64 * 1024;

/**
 * The patterns of `--exclude-from FILE`, read now (rsync(1): one a line, blank lines and lines starting with
 * `;` or `#` ignored), or `null` when they cannot be known (stdin, unreadable, written by the line first, a
 * `\r` or trailing blank whose meaning we do not claim).
 */
function listPatterns(cx: CommandContext, f: Field): string[] | null {
  if (f.value === '-' || f.uncertain !== undefined) return null;
  const c = cx.readContent(f, MAX_LIST);
  if ('uncertain' in c) return null;
  const lines = c.text.split('\n').filter((l) => l !== '' && !/^[;#]/.test(l));
  return lines.some((l) => /[\r\s]$/.test(l)) ? null : lines;
}

/**
 * What `--exclude PATTERN` and `--exclude-from FILE` leave out of a recursive rsync source, as rsync(1)
 * matches them against the names of the transfer (a source without a trailing slash transfers the directory
 * itself: `src/a.ts`; with one, its contents: `a.ts`): a pattern without `/` matches any name component, one
 * with a leading `/` is anchored at the transfer's root, any other is matched against the end of the path; a
 * trailing `/` matches directories only. An excluded directory is not descended. Only exclusions are read:
 * an `--include`, `--filter`, `-F`, `--files-from`, a `+ `/`- ` rule or a list that cannot be read may bring
 * back what an exclude leaves out, so then nothing is skipped.
 */
export function rsyncFilter(p: ParsedArgs, source: Field, cx: CommandContext): SubtreeFilter | undefined {
  const fromLists: Field[] = [];
  for (const list of values(p, '--exclude-from')) {
    const lines = listPatterns(cx, list);
    if (lines === null) return undefined;
    for (const l of lines) fromLists.push({ ...list, value: l, raw: l, glob: -1 });
  }
  const excludes = [...values(p, '--exclude'), ...fromLists];
  if (excludes.length === 0 || source.uncertain !== undefined) return undefined;
  if (
    values(p, '--include', '--filter', '-f', '--include-from', '--files-from').length > 0 ||
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
