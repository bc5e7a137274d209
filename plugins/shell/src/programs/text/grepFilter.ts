import type { SubtreeFilter } from '@toolgate/core';
import type { Opt } from '../argv.js';

/** An fnmatch(3) glob (`*`, `?`, `[…]`, `\x`) as a regular expression over a whole base name. */
export function globRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '\\' && i + 1 < glob.length) re += escapeChar(glob[++i]!);
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end === -1) re += '\\[';
      else {
        const body = glob
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\');
        re += `[${body}]`;
        i = end;
      }
    } else re += escapeChar(c);
  }
  return new RegExp(`^${re}$`, 's');
}

function escapeChar(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}

/**
 * What `grep -r` skips beneath its roots (grep(1)): files whose base name matches an `--exclude` glob or, when
 * `--include` is given, matches none of them; directories whose base name matches an `--exclude-dir` glob.
 * `undefined` when it skips nothing.
 */
export function grepFilter(opts: readonly Opt[]): SubtreeFilter | undefined {
  const globs = (name: string) =>
    opts
      .filter((o) => o.name === name && o.value && o.value.uncertain === undefined)
      .map((o) => globRegExp(o.value!.value));
  const include = globs('--include');
  const exclude = globs('--exclude');
  const excludeDir = globs('--exclude-dir');
  if (include.length + exclude.length + excludeDir.length === 0) return undefined;
  const written = opts
    .filter((o) => ['--include', '--exclude', '--exclude-dir'].includes(o.name))
    .map((o) => `${o.name}=${o.value?.value ?? ''}`)
    .join(' ');
  return {
    name: `grep ${written}`,
    skips(relPath: string, isDir: boolean): boolean {
      const base = relPath.slice(relPath.lastIndexOf('/') + 1);
      if (isDir) return excludeDir.some((r) => r.test(base));
      if (exclude.some((r) => r.test(base))) return true;
      return include.length > 0 && !include.some((r) => r.test(base));
    },
  };
}
