import type { Script } from './ast.js';
import { fastParse } from './fastParse.js';
import { fullParse } from './fullParse.js';
import { lex } from './lex.js';
import { Lru } from './lru.js';

export type ParseMode = 'auto' | 'fast' | 'full';

const cache = new Lru<Script>(512);

/**
 * Parses a command: the fast path for lists of simple commands, bash-parser for the rest. A parse is a pure
 * function of the text, so it is memoised (bounded); nothing about the filesystem is.
 * Throws `ShellParseError` when the text cannot be parsed.
 */
export function parseScript(src: string, mode: ParseMode = 'auto'): Script {
  if (mode === 'auto') {
    const hit = cache.get(src);
    if (hit) return hit;
  }
  const lexed = lex(src);
  const fast = mode === 'fast' || (mode === 'auto' && !lexed.complex);
  const root = fast ? fastParse(src, lexed.tokens) : fullParse(lexed, src);
  const script: Script = { src, root, heredocs: lexed.heredocs, fast };
  if (mode === 'auto') cache.set(src, script);
  return script;
}
