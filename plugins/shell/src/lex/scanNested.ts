import { ShellParseError } from './parseError.js';

// Quote-aware matchers shared by the lexer and the word expander. Each takes the index just after an
// opener and returns the index just after its closer; an unterminated construct is a parse error.

/** After the opening `"`: returns the index after the closing `"`. */
export function skipDouble(src: string, i: number): number {
  const n = src.length;
  while (i < n) {
    const c = src[i];
    if (c === '\\') i += 2;
    else if (c === '"') return i + 1;
    else if (c === '`') i = skipBacktick(src, i + 1);
    else if (c === '$' && src[i + 1] === '(') i = skipParen(src, i + 2);
    else if (c === '$' && src[i + 1] === '{') i = skipBrace(src, i + 2);
    else i++;
  }
  throw new ShellParseError('unterminated double quote');
}

/** After the opening `'`. */
export function skipSingle(src: string, i: number): number {
  const j = src.indexOf("'", i);
  if (j === -1) throw new ShellParseError('unterminated single quote');
  return j + 1;
}

/** After the opening `$'`: ANSI-C quotes allow `\'` inside. */
export function skipAnsi(src: string, i: number): number {
  const n = src.length;
  while (i < n) {
    const c = src[i];
    if (c === '\\') i += 2;
    else if (c === "'") return i + 1;
    else i++;
  }
  throw new ShellParseError("unterminated $'…' quote");
}

/** After the opening backtick. */
export function skipBacktick(src: string, i: number): number {
  const n = src.length;
  while (i < n) {
    const c = src[i];
    if (c === '\\') i += 2;
    else if (c === '`') return i + 1;
    else i++;
  }
  throw new ShellParseError('unterminated backtick substitution');
}

/** After an opening `(` (of `$(`, `$((`, `<(`, an array): returns the index after the matching `)`. */
export function skipParen(src: string, i: number): number {
  const n = src.length;
  let depth = 1;
  let wordStart = true;
  while (i < n) {
    const c = src[i];
    if (c === '\\') {
      i += 2;
      wordStart = false;
      continue;
    }
    if (c === "'") i = skipSingle(src, i + 1);
    else if (c === '"') i = skipDouble(src, i + 1);
    else if (c === '`') i = skipBacktick(src, i + 1);
    else if (c === '$' && src[i + 1] === "'") i = skipAnsi(src, i + 2);
    else if (c === '$' && src[i + 1] === '{') i = skipBrace(src, i + 2);
    else if (c === '#' && wordStart) {
      const nl = src.indexOf('\n', i);
      i = nl === -1 ? n : nl;
    } else {
      if (c === '(') depth++;
      else if (c === ')') {
        depth--;
        if (depth === 0) return i + 1;
      }
      wordStart = c === ' ' || c === '\t' || c === '\n' || c === ';' || c === '(' || c === '|' || c === '&';
      i++;
      continue;
    }
    wordStart = false;
  }
  throw new ShellParseError('unterminated parenthesis');
}

/** After the opening `${`. */
export function skipBrace(src: string, i: number): number {
  const n = src.length;
  let depth = 1;
  while (i < n) {
    const c = src[i];
    if (c === '\\') i += 2;
    else if (c === "'") i = skipSingle(src, i + 1);
    else if (c === '"') i = skipDouble(src, i + 1);
    else if (c === '`') i = skipBacktick(src, i + 1);
    else if (c === '$' && src[i + 1] === '(') i = skipParen(src, i + 2);
    else if (c === '$' && src[i + 1] === '{') i = skipBrace(src, i + 2);
    else {
      if (c === '{') depth++;
      else if (c === '}') {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
  }
  throw new ShellParseError('unterminated ${…}');
}
