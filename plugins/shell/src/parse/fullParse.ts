import { monotonicMs } from '@toolgate/core';
import parse, { type BpNode } from 'bash-parser';
import { checkBudget, extendBudget } from '../lex/budget.js';
import type { Lexed } from '../lex/lex.js';
import { ShellParseError } from '../lex/parseError.js';
import type { Node, Redirect, RedirectKind, WordRef } from './ast.js';

const ASSIGN = /^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=/;

/**
 * Parses with bash-parser (posix mode) the *masked* text, so its misparses never reach us, and maps its
 * AST to ours. Words are kept as offsets into the original text: bash-parser's own `text` has quotes
 * removed, which loses whether `*` or `$X` was quoted.
 */
// Whether bash-parser has run in this process yet: its first call pays for warming up, not for the command.
let warm = false;

export function fullParse(lexed: Lexed, src: string, from = 0, to = src.length): Node {
  let text = from === 0 && to === src.length ? lexed.masked : lexed.masked.slice(from, to);
  // bash-parser shifts `&` onto the wrong command when the text starts with newlines: blank them.
  const lead = /^\s*/.exec(text)![0];
  if (lead.includes('\n')) text = ' '.repeat(lead.length) + text.slice(lead.length);
  if (lexed.tokens.length === 0 || text.trim() === '') return { t: 'seq', items: [] };
  let ast: BpNode;
  // One bash-parser call cannot be interrupted: refuse one the budget cannot pay for (≈ 4 µs per character
  // when warm, and more than linear beyond a few KB), rather than block the host.
  checkBudget(text.length * 0.004);
  try {
    if (warm) ast = parse(text, { insertLOC: true });
    else {
      const t0 = monotonicMs();
      ast = parse(text, { insertLOC: true });
      warm = true;
      extendBudget(monotonicMs() - t0);
    }
  } catch (err) {
    throw new ShellParseError(`bash-parser: ${(err as Error).message.split('\n')[0]}`);
  }

  const word = (w: BpNode | undefined): WordRef => {
    if (!w?.loc) throw new ShellParseError('bash-parser returned a word without a location');
    return { s: from + w.loc.start.char, e: from + w.loc.end.char + 1 };
  };

  const redirect = (r: BpNode): Redirect => {
    const opNode = r.op as BpNode;
    const at = opNode.loc ? from + opNode.loc.start.char : -1;
    let op = opNode.text ?? '';
    let kind: RedirectKind = 'file';
    if (lexed.heredocAt.has(at)) {
      op = '<<';
      kind = 'heredoc';
    } else if (lexed.herestringAt.has(at)) {
      op = '<<<';
      kind = 'herestring';
    } else if (op === '>&' || op === '<&') kind = 'dup';
    const out: Redirect = { op, target: word(r.file), kind };
    if (r.numberIo?.text !== undefined) out.fd = Number(r.numberIo.text);
    return out;
  };

  const redirects = (n: BpNode): Redirect[] => (n.redirections ?? []).map(redirect);

  const list = (n: BpNode | undefined): Node => {
    if (!n) return { t: 'seq', items: [] };
    if (n.type !== 'CompoundList' && n.type !== 'Script') return stmt(n);
    const items = (n.commands ?? []).map(stmt);
    return items.length === 1 ? items[0]! : { t: 'seq', items };
  };

  const stmt = (n: BpNode): Node => {
    let node = inner(n);
    if (n.bang || (n.loc && lexed.bangAt.has(from + n.loc.start.char))) node = { t: 'not', node };
    return n.async ? { t: 'bg', node } : node;
  };

  const inner = (n: BpNode): Node => {
    switch (n.type) {
      case 'Command': {
        const start = n.name?.loc ? from + n.name.loc.start.char : undefined;
        if (start !== undefined && lexed.arithAt.has(start)) {
          return { t: 'arith', text: { s: start, e: lexed.arithAt.get(start)! } };
        }
        const assigns: WordRef[] = [];
        const words: WordRef[] = [];
        const reds: Redirect[] = [];
        for (const p of n.prefix ?? []) {
          if (p.type === 'Redirect') reds.push(redirect(p));
          else if (p.type === 'AssignmentWord') assigns.push(word(p));
          else words.push(word(p));
        }
        if (n.name) words.push(word(n.name));
        for (const p of n.suffix ?? []) {
          if (p.type === 'Redirect') reds.push(redirect(p));
          else words.push(word(p));
        }
        // posix bash-parser does not know `a[0]=x` is an assignment; bash does.
        while (words.length > 0 && ASSIGN.test(src.slice(words[0]!.s, words[0]!.e)))
          assigns.push(words.shift()!);
        return { t: 'cmd', assigns, words, redirects: reds };
      }
      case 'LogicalExpression':
        return {
          t: n.op === 'and' ? 'and' : 'or',
          left: stmt(n.left as BpNode),
          right: stmt(n.right as BpNode),
        };
      case 'Pipeline':
        return { t: 'pipe', items: (n.commands ?? []).map(stmt) };
      case 'Subshell':
        return { t: 'subshell', body: list(n.list), redirects: redirects(n) };
      case 'CompoundList':
        return { t: 'group', body: list({ ...n, redirections: [] }), redirects: redirects(n) };
      case 'If': {
        const out: Node = {
          t: 'if',
          clause: list(n.clause),
          consequent: list(n.then),
          redirects: redirects(n),
        };
        if (n.else) out.alternate = n.else.type === 'If' ? stmt(n.else) : list(n.else);
        return out;
      }
      case 'While':
      case 'Until':
        return { t: 'loop', clause: list(n.clause), body: list(n.do), redirects: redirects(n) };
      case 'For': {
        const out: Node = { t: 'for', name: n.name?.text ?? '', body: list(n.do), redirects: redirects(n) };
        if (n.wordlist) out.list = n.wordlist.map(word);
        return out;
      }
      case 'Case':
        return {
          t: 'case',
          word: word(n.clause),
          items: (n.cases ?? []).map((c) => {
            const item: { patterns: WordRef[]; body?: Node } = { patterns: (c.pattern ?? []).map(word) };
            if (c.body) item.body = list(c.body);
            return item;
          }),
          redirects: redirects(n),
        };
      case 'Function':
        return { t: 'func', name: n.name?.text ?? '', body: list(n.body), redirects: redirects(n) };
      default:
        throw new ShellParseError(`unsupported construct ${n.type}`);
    }
  };

  return list(ast);
}
