/**
 * What an awk program does beyond reading its input files and writing stdout: `print > "f"` / `>>` write a
 * file, `print | "cmd"` / `"cmd" | getline` / `system("cmd")` run shell commands, `getline < "f"` reads a
 * file, `@include` / `@load` pull in code, and assignments to `ARGV` change which files are read. A small
 * tokenizer (strings with awk's escapes, regex literals, comments, line continuations) finds them; a file name
 * or command that is not one string literal (`print > $1 ".txt"`) is a problem the caller makes uncertain.
 */
export interface AwkEffects {
  reads: string[];
  writes: string[];
  /** Shell commands run (`system`, `|`, `|&`), as literal text. */
  commands: string[];
  problem?: string;
}

type Tok = { k: 'str' | 'id' | 'num' | 'regex' | 'op' | 'nl'; v: string };

// gawk and mawk treat these redirection targets as streams, not files.
const STREAMS = new Set([
  '/dev/stdout',
  '/dev/stderr',
  '-',
  '/dev/fd/1',
  '/dev/fd/2',
  '/dev/stdin',
  '/dev/fd/0',
]);

const ESCAPES: Record<string, string> = {
  '\\': '\\',
  '"': '"',
  '/': '/',
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
};

/** Decodes an awk string literal body; `null` for an escape whose meaning differs between awks. */
function decode(body: string): string | null {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const n = body[i + 1] ?? '';
    const oct = /^[0-7]{1,3}/.exec(body.slice(i + 1));
    if (oct) {
      out += String.fromCharCode(Number.parseInt(oct[0], 8));
      i += oct[0].length;
    } else if (n in ESCAPES) {
      out += ESCAPES[n];
      i++;
    } else if (n === '\n') i++;
    else return null;
  }
  return out;
}

// After these a `/` starts a division, elsewhere a regex literal.
function operandEnds(t: Tok | undefined): boolean {
  if (!t) return false;
  if (t.k === 'str' || t.k === 'num' || t.k === 'regex') return true;
  if (t.k === 'id') return !['print', 'printf', 'return', 'in', 'case', 'getline'].includes(t.v);
  return t.v === ')' || t.v === ']' || t.v === '$' || t.v === '++' || t.v === '--';
}

const OPS = [
  '|&',
  '>>',
  '&&',
  '||',
  '++',
  '--',
  '==',
  '!=',
  '<=',
  '>=',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '^=',
  '**',
];

function tokenize(src: string): Tok[] | string {
  const toks: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === '\\' && src[i + 1] === '\n') i += 2;
    else if (c === ' ' || c === '\t' || c === '\r') i++;
    else if (c === '\n') {
      toks.push({ k: 'nl', v: '\n' });
      i++;
    } else if (c === '#') {
      while (i < src.length && src[i] !== '\n') i++;
    } else if (c === '"') {
      let j = i + 1;
      while (j < src.length && src[j] !== '"') {
        if (src[j] === '\n') return 'a string literal is not terminated';
        j += src[j] === '\\' ? 2 : 1;
      }
      if (j >= src.length) return 'a string literal is not terminated';
      const v = decode(src.slice(i + 1, j));
      if (v === null) return 'a string literal has an escape awks read differently';
      toks.push({ k: 'str', v });
      i = j + 1;
    } else if (c === '/' && !operandEnds(toks.at(-1))) {
      let j = i + 1;
      let bracket = false;
      while (j < src.length && (bracket || src[j] !== '/')) {
        if (src[j] === '\n') return 'a regex literal is not terminated';
        if (src[j] === '\\') j++;
        else if (src[j] === '[') bracket = true;
        else if (src[j] === ']') bracket = false;
        j++;
      }
      if (j >= src.length) return 'a regex literal is not terminated';
      toks.push({ k: 'regex', v: src.slice(i + 1, j) });
      i = j + 1;
    } else if (/[A-Za-z_@]/.test(c) && /^@?[A-Za-z_]/.test(src.slice(i, i + 2))) {
      const m = /^@?[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)?/.exec(src.slice(i));
      const v = m?.[0] ?? c;
      toks.push({ k: 'id', v });
      i += v.length;
    } else if (/[0-9.]/.test(c)) {
      const m = /^(?:0[xX][0-9a-fA-F]+|[0-9]*\.?[0-9]*(?:[eE][-+]?[0-9]+)?)/.exec(src.slice(i))!;
      toks.push({ k: m[0] === '' || m[0] === '.' ? 'op' : 'num', v: m[0] || c });
      i += Math.max(m[0].length, 1);
    } else {
      const op = OPS.find((o) => src.startsWith(o, i)) ?? c;
      toks.push({ k: 'op', v: op });
      i += op.length;
    }
  }
  return toks;
}

// Tokens that end a simple statement (and so a `print` redirection's target).
function ends(t: Tok | undefined): boolean {
  return !t || t.k === 'nl' || t.v === ';' || t.v === '}';
}

// Tokens after which a string literal starts a new expression (not a concatenation).
function startsExpr(t: Tok | undefined): boolean {
  return !t || t.k === 'nl' || ['{', ';', '}', '(', '&&', '||', '!', ',', '=', '?', ':'].includes(t.v);
}

/** Scans an awk program for the files and commands it touches. */
export function awkProgramEffects(src: string): AwkEffects {
  const out: AwkEffects = { reads: [], writes: [], commands: [] };
  const toks = tokenize(src);
  if (typeof toks === 'string') return { ...out, problem: toks };
  const fail = (why: string): AwkEffects => ({ ...out, problem: why });
  /** A redirection or pipe target: one string literal followed by the end of the expression. */
  const literalAt = (k: number, endOk: (t: Tok | undefined) => boolean): string | undefined => {
    const t = toks[k];
    return t?.k === 'str' && endOk(toks[k + 1]) ? t.v : undefined;
  };
  let depth = 0;
  let inPrint = false;
  for (let k = 0; k < toks.length; k++) {
    const t = toks[k]!;
    if (t.v === '(' || t.v === '[') depth++;
    if (t.v === ')' || t.v === ']') depth--;
    if (ends(t)) inPrint = false;
    if (t.k === 'id' && (t.v === 'print' || t.v === 'printf')) {
      inPrint = true;
      depth = 0;
      continue;
    }
    if (t.k === 'id' && /^@/.test(t.v)) {
      if (t.v === '@namespace') continue;
      return fail(`${t.v} pulls in code that is not analysed`);
    }
    // `ARGV[1] = "/etc/shadow"` in BEGIN makes awk read that file; telling reads from writes is not worth it.
    if (t.v === 'ARGV') return fail('the program uses ARGV: it may change which files are read');
    if (t.v === 'system') {
      const cmd = toks[k + 1]?.v === '(' ? literalAt(k + 2, (n) => n?.v === ')') : undefined;
      if (cmd === undefined) return fail('system() runs a command that is not one string literal');
      out.commands.push(cmd);
      continue;
    }
    if (t.v === 'getline') {
      const prev = toks[k - 1];
      if (prev?.v === '|' || prev?.v === '|&') {
        const cmd = toks[k - 2];
        if (cmd?.k !== 'str' || !startsExpr(toks[k - 3]))
          return fail('getline reads from a command that is not one string literal');
        out.commands.push(cmd.v);
        continue;
      }
      // `getline [lvalue] < "file"`: the file is the single primary after the first `<` of the expression.
      let d = 0;
      for (let j = k + 1; j < toks.length && !ends(toks[j]); j++) {
        const x = toks[j]!.v;
        if (x === '(' || x === '[') d++;
        if (x === ')' || x === ']') d--;
        if (d < 0) break;
        if (d === 0 && x === '<') {
          const f = toks[j + 1];
          if (f?.k !== 'str') return fail('getline reads a file that is not one string literal');
          if (!STREAMS.has(f.v)) out.reads.push(f.v);
          break;
        }
      }
      continue;
    }
    if (inPrint && depth === 0 && (t.v === '>' || t.v === '>>' || t.v === '|' || t.v === '|&')) {
      const target = literalAt(k + 1, ends);
      if (target === undefined) return fail(`print ${t.v} to a target that is not one string literal`);
      if (t.v === '|' || t.v === '|&') out.commands.push(target);
      else if (!STREAMS.has(target) && !target.startsWith('/inet')) out.writes.push(target);
      else if (target.startsWith('/inet')) return fail('a network special file');
      inPrint = false;
    }
  }
  return out;
}
