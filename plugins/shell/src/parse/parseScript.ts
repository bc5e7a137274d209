import { checkBudget } from '../lex/budget.js';
import { type Lexed, lex } from '../lex/lex.js';
import { type Chunk, splitTopLevel } from '../lex/splitTopLevel.js';
import type { Node, Script } from './ast.js';
import { fastParse } from './fastParse.js';
import { fullParse } from './fullParse.js';
import { Lru } from './lru.js';

export type ParseMode = 'auto' | 'fast' | 'full';

const cache = new Lru<Script>(512);

/**
 * Parses a command: the fast path for lists of simple commands, bash-parser for the rest. A parse is a pure
 * function of the text, so it is memoised (bounded); nothing about the filesystem is.
 * Throws `ShellParseError` when the text cannot be parsed.
 *
 * @example
 * ```ts
 * // parseScript is exported by the package (@toolgate/shell).
 * parseScript('cat a > b && cd /x').fast; // true: no bash-parser needed
 * parseScript('for f in *; do rm "$f"; done').fast; // false
 * ```
 */
export function parseScript(src: string, mode: ParseMode = 'auto'): Script {
  if (mode === 'auto') {
    const hit = cache.get(src);
    if (hit) return hit;
  }
  const lexed = lex(src);
  const fast = mode === 'fast' || (mode === 'auto' && !lexed.complex);
  let root: Node;
  if (fast) root = fastParse(src, lexed.tokens);
  else if (mode === 'full') root = fullParse(lexed, src);
  else {
    // One bash-parser call (its per-call cost is high) over the text with the simple parts blanked out;
    // each top-level part yields one list item, so the items interleave back by position.
    const chunks = splitTopLevel(lexed.tokens, src);
    const split = splitParse(lexed, src, chunks);
    if (split) root = split;
    else {
      checkBudget();
      root = fullParse(lexed, src);
    }
  }
  const script: Script = { src, root, heredocs: lexed.heredocs, fast };
  if (mode === 'auto') cache.set(src, script);
  return script;
}

// bash-parser's cost grows faster than the text (≈ 9 µs/char at 3 KB, 40 µs/char at 30 KB): compound parts
// are parsed in groups of about this many characters, with the budget checked between groups.
const GROUP_CHARS = 1500;

function splitParse(lexed: Lexed, src: string, chunks: Chunk[]): Node | undefined {
  const complex = chunks.filter((c) => c.complex);
  if (complex.length === chunks.length && complex.length < 2) return undefined;
  const parts: string[] = [];
  let at = 0;
  for (const c of chunks) {
    if (c.complex) continue;
    parts.push(lexed.masked.slice(at, c.s), lexed.masked.slice(c.s, c.e).replace(/[^\n]/g, ' '));
    at = c.e;
  }
  parts.push(lexed.masked.slice(at));
  const blanked = { ...lexed, masked: parts.join('') };
  const parsed: Node[] = [];
  for (let g = 0; g < complex.length; ) {
    let end = g + 1;
    while (end < complex.length && complex[end]!.e - complex[g]!.s <= GROUP_CHARS) end++;
    checkBudget();
    const whole =
      g === 0 && end === complex.length
        ? fullParse(blanked, src)
        : fullParse(blanked, src, complex[g]!.s, complex[end - 1]!.e);
    const items = whole.t === 'seq' ? whole.items : [whole];
    if (items.length !== end - g) return undefined;
    parsed.push(...items);
    g = end;
  }
  const items: Node[] = [];
  let k = 0;
  for (const c of chunks) {
    if (c.complex) {
      items.push(parsed[k++]!);
      continue;
    }
    const node = fastParse(src, lexed.tokens.slice(c.from, c.to));
    if (node.t === 'seq') items.push(...node.items);
    else items.push(node);
  }
  return items.length === 1 ? items[0]! : { t: 'seq', items };
}
