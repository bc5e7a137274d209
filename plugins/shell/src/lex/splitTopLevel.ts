import type { Tok } from './lex.js';

export interface Chunk {
  /** Token range [from, to) and text range [s, e). */
  from: number;
  to: number;
  s: number;
  e: number;
  complex: boolean;
}

const OPEN = new Set(['if', 'case', 'for', 'while', 'until', 'select', '{']);
const CLOSE: Record<string, string> = { fi: 'if', esac: 'case', done: 'loop', '}': '{' };

/**
 * Splits a script at top-level list separators (`;`, `&`, newline outside any compound command), so that
 * each part is parsed on its own: simple parts by the fast path, only compound ones by bash-parser (whose
 * cost grows with the text). Returns one chunk when the nesting cannot be followed.
 */
export function splitTopLevel(tokens: readonly Tok[], src: string): Chunk[] {
  const srcLength = src.length;
  const chunks: Chunk[] = [];
  const stack: string[] = [];
  let from = 0;
  let complex = false;
  const start = (k: number) => (k < tokens.length ? tokens[k]!.s : srcLength);
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.k === 'w' && t.rw) {
      complex = true;
      const text = src.slice(t.s, t.e);
      if (OPEN.has(text))
        stack.push(
          text === 'while' || text === 'until' || text === 'for' || text === 'select' ? 'loop' : text,
        );
      else if (text in CLOSE) {
        if (stack.pop() !== CLOSE[text])
          return [{ from: 0, to: tokens.length, s: 0, e: srcLength, complex: true }];
      }
      continue;
    }
    if (t.k === 'arith' || (t.k === 'r' && t.kind === 'heredoc')) complex = true;
    if (t.k !== 'op') continue;
    if (t.v === '(') {
      complex = true;
      stack.push('(');
    } else if (t.v === ')') {
      complex = true;
      // Inside `case … in`, a `)` ends a pattern.
      if (stack[stack.length - 1] === '(') stack.pop();
      else if (stack[stack.length - 1] !== 'case')
        return [{ from: 0, to: tokens.length, s: 0, e: srcLength, complex: true }];
    } else if (t.v.startsWith(';;') || t.v === ';&') complex = true;
    else if (stack.length === 0 && (t.v === ';' || t.v === '&' || t.v === '\n')) {
      if (k + 1 > from) chunks.push({ from, to: k + 1, s: start(from), e: t.s + t.v.length, complex });
      from = k + 1;
      complex = false;
    }
  }
  if (stack.length > 0) return [{ from: 0, to: tokens.length, s: 0, e: srcLength, complex: true }];
  if (from < tokens.length) chunks.push({ from, to: tokens.length, s: start(from), e: srcLength, complex });
  return chunks;
}
