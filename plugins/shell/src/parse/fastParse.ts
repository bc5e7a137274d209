import type { Tok } from '../lex/lex.js';
import { ShellParseError } from '../lex/parseError.js';
import type { Node, Redirect, WordRef } from './ast.js';

const ASSIGN = /^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=/;

/**
 * The hand-written parser for lists of simple commands (words, quotes, redirects, `&&` `||` `;` `&` `|`).
 * bash-parser takes ~0.4 ms per command; this takes microseconds. Only used when the lexer saw nothing
 * compound (`complex` false); a differential test proves it equal to the bash-parser path.
 */
export function fastParse(src: string, tokens: readonly Tok[]): Node {
  let i = 0;
  const peek = () => tokens[i];
  const skipNewlines = () => {
    while (true) {
      const t = tokens[i];
      if (t?.k === 'op' && t.v === '\n') i++;
      else break;
    }
  };

  const command = (): Node => {
    const assigns: WordRef[] = [];
    const words: WordRef[] = [];
    const redirects: Redirect[] = [];
    while (i < tokens.length) {
      const t = tokens[i]!;
      if (t.k === 'w') {
        const w = { s: t.s, e: t.e };
        if (words.length === 0 && ASSIGN.test(src.slice(t.s, t.e))) assigns.push(w);
        else words.push(w);
        i++;
      } else if (t.k === 'r') {
        const target = tokens[i + 1];
        if (target?.k !== 'w') throw new ShellParseError('redirect without a target');
        const r: Redirect = { op: t.op, target: { s: target.s, e: target.e }, kind: t.kind };
        if (t.fd !== undefined) r.fd = t.fd;
        redirects.push(r);
        i += 2;
      } else break;
    }
    if (assigns.length === 0 && words.length === 0 && redirects.length === 0) {
      const t = peek();
      throw new ShellParseError(`syntax error near ${t?.k === 'op' ? JSON.stringify(t.v) : 'end of input'}`);
    }
    return { t: 'cmd', assigns, words, redirects };
  };

  const pipeline = (): Node => {
    const t0 = tokens[i];
    let bang = false;
    if (t0?.k === 'w' && src.slice(t0.s, t0.e) === '!') {
      bang = true;
      i++;
    }
    const node = pipe();
    return bang ? { t: 'not', node } : node;
  };

  const pipe = (): Node => {
    const items = [command()];
    while (true) {
      const t = peek();
      if (t?.k !== 'op' || t.v !== '|') break;
      i++;
      skipNewlines();
      items.push(command());
    }
    return items.length === 1 ? items[0]! : { t: 'pipe', items };
  };

  const andOr = (): Node => {
    let left = pipeline();
    while (true) {
      const t = peek();
      if (t?.k !== 'op' || (t.v !== '&&' && t.v !== '||')) break;
      i++;
      skipNewlines();
      left = { t: t.v === '&&' ? 'and' : 'or', left, right: pipeline() };
    }
    return left;
  };

  const items: Node[] = [];
  skipNewlines();
  while (i < tokens.length) {
    let node = andOr();
    const t = peek();
    if (t?.k === 'op' && (t.v === ';' || t.v === '&' || t.v === '\n')) {
      if (t.v === '&') node = { t: 'bg', node };
      i++;
    } else if (t !== undefined) {
      throw new ShellParseError(`syntax error near ${t.k === 'op' ? JSON.stringify(t.v) : 'a token'}`);
    }
    items.push(node);
    skipNewlines();
  }
  return items.length === 1 ? items[0]! : { t: 'seq', items };
}
