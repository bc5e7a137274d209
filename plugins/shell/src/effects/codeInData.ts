// bash runs code hidden in what looks like data: an arithmetic expression expands `$(…)` inside it and
// evaluates every variable it names as a further expression (`x='a[$(cat /etc/shadow)]'; (( x ))` reads
// the file), and array subscripts are arithmetic wherever a variable name is accepted (`test -v`, `printf
// -v`, `read`, `declare`…). Each place below was confirmed under bash 5 with a canary file.
import { skipBacktick, skipParen } from '../lex/scanNested.js';
import type { Field, Lookup } from '../state/expandWord.js';
import { heredocSubstitutions } from '../state/expandWord.js';

/** Where code found in data goes: analysed as nested shell, or uncertain when it cannot be known. */
export interface CodeSink {
  lookup: Lookup;
  /** Shell code that runs (in a subshell): a `$(…)` inside an expression. */
  code(text: string, via: string): void;
  uncertain(raw: string, reason: string): void;
}

// Always numbers, whatever they hold: evaluating them runs nothing.
const NUMERIC = new Set([
  '#',
  '?',
  '$',
  '!',
  'RANDOM',
  'SRANDOM',
  'LINENO',
  'SECONDS',
  'BASHPID',
  'PPID',
  'UID',
  'EUID',
  'OPTIND',
  'EPOCHSECONDS',
  'COLUMNS',
  'LINES',
  'SHLVL',
]);
const MAX_DEPTH = 8;
const TOKEN = /[0-9][0-9A-Za-z_#@]*|[A-Za-z_][A-Za-z0-9_]*/g;

/**
 * An arithmetic expression as bash evaluates it: its `$(…)` and backticks run; every variable it names
 * (bare or as `$x`) is evaluated as an expression in turn. Unknown values there are code we cannot see.
 */
export function arithmetic(text: string, sink: CodeSink, depth = 0): void {
  if (depth > MAX_DEPTH) {
    sink.uncertain(text, 'arithmetic nested through variables too deeply');
    return;
  }
  let plain = '';
  for (let i = 0; i < text.length; ) {
    const c = text[i]!;
    if (c === '$' && text[i + 1] === '(') {
      const e = skipParen(text, i + 2);
      const inner = text.slice(i + 2, e - 1);
      // `$((…))` is a nested expression; `$(…)` a command.
      if (inner.startsWith('(') && inner.endsWith(')')) arithmetic(inner.slice(1, -1), sink, depth);
      else sink.code(inner, 'arithmetic');
      plain += ' 0 ';
      i = e;
      continue;
    }
    if (c === '`') {
      const e = skipBacktick(text, i + 1);
      sink.code(text.slice(i + 1, e - 1), 'arithmetic');
      plain += ' 0 ';
      i = e;
      continue;
    }
    if (c === '$' && text[i + 1] === '{') {
      // `${x}` and friends: the value is substituted, then evaluated; treat the name like a bare one.
      plain += ' ';
      i += 2;
      continue;
    }
    plain += c === '$' ? ' ' : c;
    i++;
  }
  for (const m of plain.matchAll(TOKEN)) {
    const name = m[0];
    if (/^[0-9]/.test(name) || NUMERIC.has(name)) continue;
    variableAsArithmetic(name, sink, depth);
  }
  // `$1`, `$@`: positional parameters substituted into the expression.
  for (const m of text.matchAll(/\$\{?([0-9@*])/g)) variableAsArithmetic(m[1]!, sink, depth);
}

function variableAsArithmetic(name: string, sink: CodeSink, depth: number): void {
  const v = sink.lookup(name);
  if (v === undefined) return;
  if (v === null) {
    sink.uncertain(`$${name}`, `$${name} is evaluated as arithmetic (code) and its value is not known`);
    return;
  }
  for (const value of v) if (!/^\s*[-+]?[0-9]*\s*$/.test(value)) arithmetic(value, sink, depth + 1);
}

/** `NAME[SUBSCRIPT]…` where bash takes a variable name: the subscript is arithmetic. */
export function subscript(f: Field, sink: CodeSink): void {
  if (f.uncertain !== undefined) {
    if (f.raw.includes('[')) sink.uncertain(f.raw, `a variable name that is not known: ${f.uncertain}`);
    return;
  }
  const m = /^-?[A-Za-z]?([A-Za-z_][A-Za-z0-9_]*)\[(.*)\]/s.exec(f.value);
  if (m) arithmetic(m[2]!, sink);
  // `declare a[$x]=1` with a blank in $x: bash does not split an assignment argument, this analysis did.
  else if (/^[A-Za-z_][A-Za-z0-9_]*\[/.test(f.value))
    sink.uncertain(f.raw, 'a subscript (arithmetic, code) split into several words');
  // `declare a=([SUB]=v …)`: each element's subscript is arithmetic too.
  const c = /^[A-Za-z_][A-Za-z0-9_]*\+?=(?=\()/.exec(f.value);
  if (c) {
    const subs = arraySubscripts(f.value.slice(c[0].length));
    if (subs === null) sink.uncertain(f.raw, 'cannot read the subscripts of an array assignment');
    else for (const sub of subs) arithmetic(sub, sink);
  }
}

/**
 * After `NAME[` at `i`: the index of the `]` that closes the subscript (quotes, `$(…)` and backticks
 * skipped, brackets nested), `-1` if there is none.
 */
export function closeSubscript(s: string, i: number): number {
  let depth = 1;
  try {
    while (i < s.length) {
      const c = s[i]!;
      if (c === '\\') i += 2;
      else if (c === "'") {
        const e = s.indexOf("'", i + 1);
        if (e === -1) return -1;
        i = e + 1;
      } else if (c === '"') {
        i++;
        while (i < s.length && s[i] !== '"') i += s[i] === '\\' ? 2 : 1;
        i++;
      } else if (c === '$' && s[i + 1] === '(') i = skipParen(s, i + 2);
      else if (c === '`') i = skipBacktick(s, i + 1);
      else {
        if (c === '[') depth++;
        else if (c === ']' && --depth === 0) return i;
        i++;
      }
    }
  } catch {
    return -1;
  }
  return -1;
}

/**
 * The subscripts of a compound array assignment's value `([SUB]=v [SUB2]+=w …)`, as written (each is
 * arithmetic for an indexed array); `null` when the value cannot be read.
 */
export function arraySubscripts(value: string): string[] | null {
  const out: string[] = [];
  let wordStart = true;
  try {
    for (let i = 1; i < value.length; ) {
      const c = value[i]!;
      if (wordStart && c === '[') {
        const e = closeSubscript(value, i + 1);
        if (e === -1) return null;
        if (value[e + 1] === '=' || (value[e + 1] === '+' && value[e + 2] === '='))
          out.push(value.slice(i + 1, e));
        i = e + 1;
        wordStart = false;
        continue;
      }
      wordStart = c === ' ' || c === '\t' || c === '\n' || c === '(';
      if (c === '\\') i += 2;
      else if (c === "'") {
        const e = value.indexOf("'", i + 1);
        if (e === -1) return null;
        i = e + 1;
      } else if (c === '"') {
        i++;
        while (i < value.length && value[i] !== '"') i += value[i] === '\\' ? 2 : 1;
        i++;
      } else if (c === '$' && value[i + 1] === '(') i = skipParen(value, i + 2);
      else if (c === '`') i = skipBacktick(value, i + 1);
      else i++;
    }
  } catch {
    return null;
  }
  return out;
}

const ARITH_TEST = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);
const NAME_ARGS = new Set([
  'declare',
  'typeset',
  'local',
  'readonly',
  'export',
  'read',
  'unset',
  'getopts',
  'wait',
  'mapfile',
  'readarray',
]);

/**
 * The code a builtin's arguments run before the command itself: subscripts of variable names, `let`
 * expressions, `[[ … -eq … ]]` operands, `compgen -W/-C/-F`, `mapfile -C`, `declare -i` values.
 */
export function codeInArgv(name: string, args: readonly Field[], sink: CodeSink): void {
  if (name === 'test' || name === '[' || name === '[[') {
    args.forEach((f, k) => {
      const prev = args[k - 1]?.value;
      if (prev === '-v' || prev === '-R') subscript(f, sink);
      // Only `[[` evaluates the operands of -eq… as expressions; `test` wants integers.
      if (name === '[[' && (ARITH_TEST.has(prev ?? '') || ARITH_TEST.has(args[k + 1]?.value ?? ''))) {
        if (f.uncertain !== undefined)
          sink.uncertain(f.raw, `an operand of [[ … -eq … ]] is arithmetic and not known: ${f.uncertain}`);
        else arithmetic(f.value, sink);
      }
    });
    return;
  }
  if (name === 'let') {
    for (const f of args) {
      if (f.uncertain !== undefined)
        sink.uncertain(f.raw, `let evaluates a value that is not known: ${f.uncertain}`);
      else arithmetic(f.value, sink);
    }
    return;
  }
  if (name === 'printf') {
    args.forEach((f, k) => {
      if (f.value === '-v' && args[k + 1]) subscript(args[k + 1]!, sink);
      else if (/^-v./.test(f.value)) subscript({ ...f, value: f.value.slice(2) }, sink);
    });
    return;
  }
  if (name === 'compgen' || name === 'complete') {
    args.forEach((f, k) => {
      const v = args[k + 1];
      if (!v || !/^-[WCF]$/.test(f.value)) return;
      if (v.uncertain !== undefined) sink.uncertain(v.raw, `${name} ${f.value} of a value that is not known`);
      // -W: the word list is expanded (its `$(…)` run); -C runs a command; -F calls a function.
      else if (f.value === '-W')
        for (const n of heredocSubstitutions(v.value, sink.lookup)) sink.code(n.text, `${name}-W`);
      else sink.code(v.value, `${name}${f.value}`);
    });
    return;
  }
  if (!NAME_ARGS.has(name)) return;
  if (name === 'mapfile' || name === 'readarray') {
    args.forEach((f, k) => {
      const v = args[k + 1];
      if (f.value === '-C' && v) {
        if (v.uncertain !== undefined) sink.uncertain(v.raw, `${name} -C of a callback that is not known`);
        else sink.code(v.value, `${name}-C`);
      }
    });
  }
  const integer = args.some((f) => /^-[a-zA-Z]*i/.test(f.value));
  for (const f of args) {
    subscript(f, sink);
    // `declare -i n=EXPR`: the value is an arithmetic expression.
    const eq = f.value.indexOf('=');
    if (integer && eq > 0 && /^[A-Za-z_]/.test(f.value)) {
      if (f.uncertain !== undefined)
        sink.uncertain(f.raw, `an integer variable gets a value that is not known`);
      else arithmetic(f.value.slice(eq + 1), sink);
    }
  }
}
