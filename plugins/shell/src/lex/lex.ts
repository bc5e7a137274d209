import type { HeredocBody } from '../parse/ast.js';
import { tick } from './budget.js';
import { ShellParseError } from './parseError.js';
import { skipAnsi, skipBacktick, skipBrace, skipParen, skipSingle } from './scanNested.js';

export type Tok =
  | { k: 'w'; s: number; e: number; rw?: true }
  | { k: 'op'; v: string; s: number }
  | { k: 'r'; op: string; fd?: number; s: number; kind: 'file' | 'dup' | 'heredoc' | 'herestring' }
  | { k: 'arith'; s: number; e: number };

export interface Lexed {
  tokens: Tok[];
  /**
   * The command with every construct bash-parser gets wrong or cannot parse replaced by text of the same
   * length it parses harmlessly (TOOLCHAIN.md: heredocs, `&>`, `((…))`, `<<<`, `$'…'`, nested `$(…)`…).
   * Offsets are unchanged, so bash-parser's word locations point into the original text.
   */
  masked: string;
  /** Needs the full parser: compound commands, functions, heredocs, arithmetic commands. */
  complex: boolean;
  heredocs: HeredocBody[];
  /** Offsets of redirect operators that are heredocs / here-strings (their word is data, not a path). */
  heredocAt: Set<number>;
  herestringAt: Set<number>;
  /** Offsets of masked `((…))` commands → their end. */
  arithAt: Map<number, number>;
  /** Offsets of compound commands whose `!` was masked (bash-parser cannot parse `! if …`). */
  bangAt: Set<number>;
}

const RESERVED = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'do',
  'done',
  'case',
  'esac',
  'while',
  'until',
  'for',
  'function',
  'select',
  '{',
  '}',
  '[[',
  ']]',
  'coproc',
]);
// Words after which a command list starts, and compound commands bash-parser then fails to recognise on
// the same line (`do if`, `then for`, `{ if`): a newline in place of the blank between them fixes it.
const INTRO = new Set(['do', 'then', 'else', 'elif', '{', '!', 'time', 'if', 'while', 'until']);
const COMPOUND = new Set(['if', 'for', 'while', 'until', 'case', 'select', '{', 'function', 'coproc']);
const ASSIGN = /^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=/;
const DIGITS = /^[0-9]+$/;

interface Pending {
  delim: string;
  strip: boolean;
  quoted: boolean;
}

/** One pass over the text: tokens for the fast path, a masked copy for bash-parser. */
export function lex(src: string): Lexed {
  const n = src.length;
  const tokens: Tok[] = [];
  const edits: [number, number, string][] = [];
  const heredocs: HeredocBody[] = [];
  const heredocAt = new Set<number>();
  const herestringAt = new Set<number>();
  const arithAt = new Map<number, number>();
  const bangAt = new Set<number>();
  let bangStart = -1;
  let complex = false;
  let cmdPos = true;
  let pending: Pending[] = [];
  let awaitDelim: { strip: boolean } | undefined;

  // Masks a substitution: inside double quotes with plain letters, outside as a quoted word of equal length.
  const maskSub = (s: number, e: number, inDouble: boolean) => {
    const len = e - s;
    edits.push([s, e, inDouble ? 'x'.repeat(len) : `"${'x'.repeat(Math.max(0, len - 2))}"`]);
  };

  const lexDouble = (i: number): number => {
    // i is just after the opening quote; substitutions inside are masked with letters.
    while (i < n) {
      const c = src[i];
      if (c === '\\') i += 2;
      else if (c === '"') return i + 1;
      else if (c === '`') {
        const e = skipBacktick(src, i + 1);
        maskSub(i, e, true);
        i = e;
      } else if (c === '$' && (src[i + 1] === '(' || src[i + 1] === '{')) {
        const e = src[i + 1] === '(' ? skipParen(src, i + 2) : skipBrace(src, i + 2);
        maskSub(i, e, true);
        i = e;
      } else i++;
    }
    throw new ShellParseError('unterminated double quote');
  };

  const lexWord = (i: number): number => {
    while (i < n) {
      const c = src[i]!;
      if (c === ' ' || c === '\t' || c === '\n' || c === ';' || c === '&' || c === '|' || c === ')') break;
      if (c === '<' || c === '>') {
        if (src[i + 1] !== '(') break;
        const e = skipParen(src, i + 2);
        maskSub(i, e, false);
        i = e;
        continue;
      }
      if (c === '(') {
        // `name=(…)`: an array assignment; bash-parser cannot parse arrays.
        if (src[i - 1] === '=' && ASSIGN.test(src.slice(wordStart, i))) {
          const e = skipParen(src, i + 1);
          maskSub(i, e, false);
          i = e;
          continue;
        }
        break;
      }
      if (c === '\\') i += 2;
      else if (c === "'") i = skipSingle(src, i + 1);
      else if (c === '"') i = lexDouble(i + 1);
      else if (c === '`') {
        const e = skipBacktick(src, i + 1);
        maskSub(i, e, false);
        i = e;
      } else if (c === '$') {
        const d = src[i + 1];
        if (d === '(' || d === '{') {
          const e = d === '(' ? skipParen(src, i + 2) : skipBrace(src, i + 2);
          maskSub(i, e, false);
          i = e;
        } else if (d === '"') {
          // `$"…"` (a translatable string) crashes bash-parser; `x"…"` is one word of the same length.
          edits.push([i, i + 1, 'x']);
          i++;
        } else if (d === "'") {
          const e = skipAnsi(src, i + 2);
          edits.push([i, e, `'${'x'.repeat(e - i - 2)}'`]);
          i = e;
        } else i++;
      } else i++;
    }
    return Math.min(i, n);
  };

  const readHeredocs = (i: number): number => {
    for (const h of pending) {
      let lineStart = i;
      let found = false;
      while (lineStart < n) {
        let lineEnd = src.indexOf('\n', lineStart);
        if (lineEnd === -1) lineEnd = n;
        let line = src.slice(lineStart, lineEnd);
        if (h.strip) line = line.replace(/^\t+/, '');
        if (line === h.delim) {
          heredocs.push({ s: i, e: lineStart, expands: !h.quoted });
          // Body and delimiter line become blank lines: bash-parser would read them as commands.
          edits.push([i, lineEnd, src.slice(i, lineEnd).replace(/[^\n]/g, ' ')]);
          i = Math.min(lineEnd + 1, n);
          found = true;
          break;
        }
        lineStart = lineEnd + 1;
      }
      if (!found) {
        // bash reads to end of input when the delimiter never comes.
        heredocs.push({ s: i, e: n, expands: !h.quoted });
        edits.push([i, n, src.slice(i, n).replace(/[^\n]/g, ' ')]);
        i = n;
      }
    }
    pending = [];
    return i;
  };

  let wordStart = 0;
  let introEnd = -1;
  let fdStart = -1;
  // A `n>&m` / `n<&-` just seen: its target word is masked with it (bash-parser misreads `2>&1 >f`).
  let dupStart = -1;
  let pendingFunction: number | undefined;
  let i = 0;
  let fd: number | undefined;
  while (i < n) {
    const c = src[i]!;
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    // A megabyte of words must not outlast the budget before the walk even starts.
    tick();
    if (c === '\\' && src[i + 1] === '\n') {
      i += 2;
      continue;
    }
    if (c === '\n') {
      tokens.push({ k: 'op', v: '\n', s: i });
      i++;
      if (pending.length > 0) i = readHeredocs(i);
      cmdPos = true;
      continue;
    }
    if (c === '#') {
      const nl = src.indexOf('\n', i);
      const end = nl === -1 ? n : nl;
      // Comments are nothing to bash-parser either (and a leading one confuses its `&` handling).
      edits.push([i, end, ' '.repeat(end - i)]);
      i = end;
      continue;
    }
    if (c === ';') {
      if (src[i + 1] === ';' || src[i + 1] === '&') {
        complex = true;
        const v = src[i + 1] === ';' && src[i + 2] === '&' ? ';;&' : src.slice(i, i + 2);
        tokens.push({ k: 'op', v, s: i });
        i += v.length;
      } else {
        tokens.push({ k: 'op', v: ';', s: i });
        i++;
      }
      cmdPos = true;
      continue;
    }
    if (c === '&') {
      if (src[i + 1] === '&') {
        tokens.push({ k: 'op', v: '&&', s: i });
        i += 2;
        cmdPos = true;
      } else if (src[i + 1] === '>') {
        // `&>` / `&>>`: stdout and stderr to a file. bash-parser misparses it as `&` then `>`.
        const op = src[i + 2] === '>' ? '>>' : '>';
        edits.push([i, i + 1, ' ']);
        tokens.push({ k: 'r', op, s: i + 1, kind: 'file' });
        i += 1 + op.length;
      } else {
        tokens.push({ k: 'op', v: '&', s: i });
        i++;
        cmdPos = true;
      }
      continue;
    }
    if (c === '|') {
      if (src[i + 1] === '|') {
        tokens.push({ k: 'op', v: '||', s: i });
        i += 2;
      } else {
        if (src[i + 1] === '&') edits.push([i + 1, i + 2, ' ']);
        tokens.push({ k: 'op', v: '|', s: i });
        i += src[i + 1] === '&' ? 2 : 1;
      }
      cmdPos = true;
      continue;
    }
    if (c === '(') {
      complex = true;
      if (cmdPos && src[i + 1] === '(') {
        // `((…))`: an arithmetic command. bash-parser misparses it; mask it as `:`.
        const e = skipParen(src, i + 2);
        if (src[e] !== ')') throw new ShellParseError('unterminated ((…))');
        tokens.push({ k: 'arith', s: i, e: e + 1 });
        arithAt.set(i, e + 1);
        edits.push([i, e + 1, `:${' '.repeat(e - i)}`]);
        i = e + 1;
        cmdPos = false;
        continue;
      }
      tokens.push({ k: 'op', v: '(', s: i });
      i++;
      cmdPos = true;
      continue;
    }
    if (c === ')') {
      complex = true;
      tokens.push({ k: 'op', v: ')', s: i });
      // `name()` is followed by the function body, a compound command.
      const prev = tokens[tokens.length - 2];
      cmdPos = prev?.k === 'op' && prev.v === '(' && prev.s === i - 1;
      introEnd = cmdPos ? i + 1 : -1;
      i++;
      continue;
    }
    if ((c === '<' || c === '>') && src[i + 1] !== '(') {
      let op: string;
      let kind: 'file' | 'dup' | 'heredoc' | 'herestring' = 'file';
      const s = i;
      if (src.startsWith('<<<', i)) {
        op = '<<<';
        kind = 'herestring';
        herestringAt.add(s);
        edits.push([i, i + 3, '<  ']);
      } else if (src.startsWith('<<', i)) {
        op = src[i + 2] === '-' ? '<<-' : '<<';
        kind = 'heredoc';
        complex = true;
        heredocAt.add(s);
        awaitDelim = { strip: op === '<<-' };
        edits.push([i, i + op.length, `<${' '.repeat(op.length - 1)}`]);
      } else if (src.startsWith('<>', i)) op = '<>';
      else if (src.startsWith('<&', i) || src.startsWith('>&', i)) {
        op = src.slice(i, i + 2);
        kind = 'dup';
      } else if (src.startsWith('>>', i)) op = '>>';
      else if (src.startsWith('>|', i)) op = '>|';
      else op = c;
      const tok: Tok = { k: 'r', op, s, kind };
      if (kind === 'dup') dupStart = fd !== undefined ? fdStart : s;
      if (fd !== undefined) tok.fd = fd;
      fd = undefined;
      tokens.push(tok);
      i += op.length;
      continue;
    }
    // A word.
    wordStart = i;
    const e = lexWord(i);
    if (e === i) throw new ShellParseError(`unexpected character ${JSON.stringify(c)}`);
    const text = src.slice(i, e);
    if (DIGITS.test(text) && (src[e] === '<' || src[e] === '>') && src[e + 1] !== '(') {
      fd = Number(text);
      fdStart = i;
      i = e;
      continue;
    }
    if (dupStart !== -1) {
      // Duplicating or closing a descriptor touches no path; bash-parser need not see it.
      if (/^(?:\d+-?|-)$/.test(text)) edits.push([dupStart, e, ' '.repeat(e - dupStart)]);
      dupStart = -1;
    }
    if (awaitDelim) {
      // A backslash-newline is removed before the word is read (`<<EO\⏎F` is the unquoted EOF, whose body
      // expands), so it neither quotes the delimiter nor belongs to it.
      const word = text.replace(/\\\n/g, '');
      pending.push({
        delim: word.replace(/\\(.)|["']/g, '$1'),
        strip: awaitDelim.strip,
        quoted: /["'\\]/.test(word),
      });
      awaitDelim = undefined;
    }
    if (pendingFunction !== undefined) {
      // `function f {` → `f() {`, which bash-parser does parse (it throws on the `function` keyword form).
      let k = e;
      while (src[k] === ' ' || src[k] === '\t') k++;
      if (src[k] === '(') edits.push([pendingFunction, pendingFunction + 8, ' '.repeat(8)]);
      else edits.push([pendingFunction, e, `${text}()`.padEnd(e - pendingFunction, ' ')]);
      pendingFunction = undefined;
    } else if (cmdPos && text === 'function') pendingFunction = i;
    if (cmdPos && RESERVED.has(text)) complex = true;
    if (introEnd !== -1 && cmdPos && COMPOUND.has(text) && /^[ \t]+$/.test(src.slice(introEnd, i))) {
      if (bangStart !== -1 && bangStart === introEnd - 1) {
        edits.push([bangStart, introEnd, ' ']);
        bangAt.add(i);
      } else edits.push([introEnd, introEnd + 1, '\n']);
    }
    bangStart = cmdPos && text === '!' ? i : -1;
    introEnd = cmdPos && INTRO.has(text) ? e : -1;
    tokens.push(cmdPos && RESERVED.has(text) ? { k: 'w', s: i, e, rw: true } : { k: 'w', s: i, e });
    if (cmdPos && !ASSIGN.test(text) && !INTRO.has(text)) cmdPos = false;
    i = e;
  }
  if (pending.length > 0) readHeredocs(n);
  let masked = src;
  if (edits.length > 0) {
    edits.sort((a, b) => a[0] - b[0]);
    const parts: string[] = [];
    let at = 0;
    for (const [s, e, r] of edits) {
      if (s < at) continue;
      parts.push(src.slice(at, s), r);
      at = e;
    }
    parts.push(src.slice(at));
    masked = parts.join('');
  }
  return { tokens, masked, complex, heredocs, heredocAt, herestringAt, arithAt, bangAt };
}
