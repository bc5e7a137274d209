/** A character taken literally in a regular expression. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * A wildcard pattern as the source of a regular expression: `[…]`/`[!…]` classes, a backslash quoting the
 * next character. `slash: true` (fnmatch without flags, find's `-name`/`-path`, tar's exclusions, zip):
 * `*` and `?` also match `/`. `slash: false` (rsync): they stop at `/`, and `**` crosses it.
 */
export function wildcardSource(pattern: string, slash: boolean): string {
  const any = slash ? '[\\s\\S]' : '[^/]';
  let re = '';
  for (let k = 0; k < pattern.length; k++) {
    const c = pattern[k]!;
    if (c === '*' && !slash && pattern[k + 1] === '*') {
      re += '[\\s\\S]*';
      k++;
    } else if (c === '*') re += `${any}*`;
    else if (c === '?') re += any;
    else if (c === '\\' && k + 1 < pattern.length) re += escapeRegExp(pattern[++k]!);
    else if (c === '[' && pattern.indexOf(']', k + 2) !== -1) {
      const end = pattern.indexOf(']', k + 2);
      let body = pattern.slice(k + 1, end);
      if (body.startsWith('!')) body = `^${body.slice(1)}`;
      re += `[${body.replace(/\\/g, '\\\\')}]`;
      k = end;
    } else re += escapeRegExp(c);
  }
  return re;
}

/**
 * fnmatch(3) without flags, as find's `-name`/`-path` and tar's exclusions use it: `*` and `?` also match
 * `/` and a leading dot; `[…]` and `[!…]` are classes; a backslash quotes the next character.
 */
export function fnmatch(pattern: string, nocase = false): RegExp {
  return new RegExp(`^${wildcardSource(pattern, true)}$`, nocase ? 'i' : '');
}
