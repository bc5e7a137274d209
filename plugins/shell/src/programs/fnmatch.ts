/** A character taken literally in a regular expression. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * fnmatch(3) without flags, as find's `-name`/`-path` and tar's exclusions use it: `*` and `?` also match
 * `/` and a leading dot; `[…]` and `[!…]` are classes; a backslash quotes the next character.
 */
export function fnmatch(pattern: string, nocase = false): RegExp {
  let re = '';
  for (let k = 0; k < pattern.length; k++) {
    const c = pattern[k]!;
    if (c === '*') re += '[\\s\\S]*';
    else if (c === '?') re += '[\\s\\S]';
    else if (c === '\\' && k + 1 < pattern.length) re += escapeRegExp(pattern[++k]!);
    else if (c === '[' && pattern.indexOf(']', k + 2) !== -1) {
      const end = pattern.indexOf(']', k + 2);
      let body = pattern.slice(k + 1, end);
      if (body.startsWith('!')) body = `^${body.slice(1)}`;
      re += `[${body.replace(/\\/g, '\\\\')}]`;
      k = end;
    } else re += escapeRegExp(c);
  }
  return new RegExp(`^${re}$`, nocase ? 'i' : '');
}
