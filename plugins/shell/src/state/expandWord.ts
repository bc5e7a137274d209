import type { SubtreeFilter } from '@toolgate/core';
import { ShellParseError } from '../lex/parseError.js';
import { skipAnsi, skipBacktick, skipBrace, skipDouble, skipParen, skipSingle } from '../lex/scanNested.js';
import { braceExpand, TooManyExpansions } from './braceExpand.js';

/** Where variables come from: values (several for a `for` loop variable), `null` unknown, `undefined` unset. */
export type Lookup = (name: string) => readonly string[] | null | undefined;

/** A word with nothing to expand, quote or glob: it is its own value. */
export const PLAIN_WORD = /^[A-Za-z0-9_/.,:=+%@^-]+$/;

/** One word after expansion, quote removal, field splitting and brace expansion. */
export interface Field {
  value: string;
  /** The source text of the word it came from. */
  raw: string;
  /** Why the value cannot be known (a `$(…)`, an unset variable…). */
  uncertain?: string;
  /** Index in `value` of the first unquoted glob character, or -1. */
  glob: number;
  /** Starts with an unquoted tilde prefix (left for core's resolver to expand). */
  tilde: boolean;
  /** The word is exactly a process substitution: a pipe, not a file. */
  pipe?: boolean;
  /** Stands for every path under these roots (find's `{}`): accesses on it are subtrees of the roots. */
  under?: readonly Field[];
  /** Beside `under`: for each root, the entries beneath it the paths cannot be (find's tests). */
  underFilters?: readonly (SubtreeFilter | undefined)[];
}

/** A nested command found inside a word: `$(…)`, backticks, `<(…)`. */
export interface Nested {
  text: string;
  /**
   * `arithmetic`: an expression bash evaluates (`$((…))`, a subscript, `${x:off}`), whose variables are
   * evaluated in turn; `prompt`: a value expanded like a prompt (`${x@P}`, runs its `$(…)`); `unknown-code`:
   * such a value that is not known.
   */
  origin: 'substitution' | 'process-substitution' | 'backtick' | 'arithmetic' | 'prompt' | 'unknown-code';
}

export interface Expanded {
  fields: Field[];
  nested: Nested[];
}

interface Piece {
  vals: readonly string[];
  quoted: boolean;
  /** From an expansion (field splitting applies when unquoted). */
  exp: boolean;
  unknown?: string;
  pipe?: boolean;
}

const MAX_COMBINATIONS = 64;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

function decodeAnsi(body: string): string {
  return body.replace(/\\(x[0-9A-Fa-f]{1,2}|[0-7]{1,3}|u[0-9A-Fa-f]{1,4}|c.|.)/gs, (_, e: string) => {
    switch (e[0]) {
      case 'n':
        return '\n';
      case 't':
        return '\t';
      case 'r':
        return '\r';
      case 'a':
        return '\x07';
      case 'b':
        return '\b';
      case 'e':
      case 'E':
        return '\x1b';
      case 'f':
        return '\f';
      case 'v':
        return '\v';
      case 'x':
      case 'u':
        return String.fromCodePoint(Number.parseInt(e.slice(1), 16));
      case 'c':
        return String.fromCharCode(e.charCodeAt(1) & 31);
      default:
        return /^[0-7]/.test(e) ? String.fromCharCode(Number.parseInt(e, 8)) : e;
    }
  });
}

/** Unescapes the inside of a backtick substitution the way the shell does before parsing it. */
function unBacktick(body: string): string {
  return body.replace(/\\([\\`$])/g, '$1');
}

class WordExpander {
  readonly nested: Nested[] = [];
  constructor(private readonly lookup: Lookup) {}

  private variable(name: string, quoted: boolean, pieces: Piece[]): void {
    const v = this.lookup(name);
    if (v === null)
      pieces.push({ vals: [''], quoted, exp: true, unknown: `variable $${name} has no known value` });
    else if (v === undefined)
      pieces.push({ vals: [''], quoted, exp: true, unknown: `variable $${name} is not set` });
    else pieces.push({ vals: v, quoted, exp: true });
  }

  /** `${…}`: the forms whose value we can know exactly; anything else is unknown. */
  private braced(inner: string, quoted: boolean, pieces: Piece[]): void {
    const m = NAME.exec(inner);
    if (/^[0-9@*#]$/.test(inner)) {
      const v = this.lookup(inner);
      if (v === null || v === undefined)
        pieces.push({ vals: [''], quoted, exp: true, unknown: `cannot know \${${inner}}` });
      else pieces.push({ vals: v, quoted, exp: true });
      return;
    }
    const special = /^[?$!-]$/.test(inner);
    if (special) {
      pieces.push({ vals: [''], quoted, exp: true, unknown: `cannot know \${${inner}}` });
      return;
    }
    if (!m) {
      pieces.push({ vals: [''], quoted, exp: true, unknown: `cannot evaluate \${${inner}}` });
      return;
    }
    const name = m[0];
    const rest = inner.slice(name.length);
    if (rest === '') {
      this.variable(name, quoted, pieces);
      return;
    }
    const op = /^(:?[-=?+])/.exec(rest);
    if (!op) {
      this.hiddenCode(name, rest);
      pieces.push({ vals: [''], quoted, exp: true, unknown: `cannot evaluate \${${inner}}` });
      return;
    }
    const word = rest.slice(op[1]!.length);
    const colon = op[1]!.startsWith(':');
    const kind = op[1]!.slice(-1);
    const v = this.lookup(name);
    if (v === null) {
      pieces.push({ vals: [''], quoted, exp: true, unknown: `variable $${name} has no known value` });
      return;
    }
    const isSet = v !== undefined && (!colon || v.every((x) => x !== ''));
    const isUnset = v === undefined || (colon && v.every((x) => x === ''));
    if (!isSet && !isUnset) {
      pieces.push({ vals: [''], quoted, exp: true, unknown: `variable $${name} may be empty` });
      return;
    }
    if (kind === '+') {
      if (isSet) this.subword(word, quoted, pieces);
      else pieces.push({ vals: [''], quoted, exp: true });
      return;
    }
    if (isSet) pieces.push({ vals: v!, quoted, exp: true });
    else if (kind === '?') pieces.push({ vals: [''], quoted, exp: true, unknown: `\${${inner}} aborts` });
    else this.subword(word, quoted, pieces);
  }

  /**
   * Code inside the forms of `${NAME…}` we do not evaluate: a subscript `[…]` and `:offset:length` are
   * arithmetic, `@P` expands the value like a prompt, and any other operand word is expanded (its `$(…)`
   * run) — reported so that the analyser sees it.
   */
  private hiddenCode(name: string, rest: string): void {
    const sub = /^\[(.*)\]/s.exec(rest);
    let after = rest;
    if (sub) {
      this.nested.push({ text: sub[1]!, origin: 'arithmetic' });
      after = rest.slice(sub[0].length);
    }
    if (/^:[^-=?+]/.test(after)) {
      this.nested.push({ text: after.slice(1), origin: 'arithmetic' });
      return;
    }
    if (after === '@P') {
      const v = this.lookup(name);
      if (v === null) this.nested.push({ text: `\${${name}@P}`, origin: 'unknown-code' });
      else for (const x of v ?? []) this.nested.push({ text: x, origin: 'prompt' });
      return;
    }
    // `${x#$(…)}`, `${x/a/$(…)}`…: the operand word is expanded.
    if (after !== '') this.scan(after, [], true);
  }

  /** The word of `${X:-word}`: expanded like a word, its fields joined. */
  private subword(word: string, quoted: boolean, pieces: Piece[]): void {
    const inner: Piece[] = [];
    this.scan(word, inner, quoted);
    for (const p of inner) pieces.push({ ...p, exp: true, quoted: quoted || p.quoted });
  }

  private substitution(text: string, origin: Nested['origin'], quoted: boolean, pieces: Piece[]): void {
    this.nested.push({ text, origin });
    pieces.push({ vals: [''], quoted, exp: true, unknown: 'the path is built from a command substitution' });
  }

  /** Reads one word's text into pieces. `dq` when inside double quotes. */
  scan(s: string, pieces: Piece[], dq = false): void {
    const n = s.length;
    let lit = '';
    const flush = () => {
      if (lit !== '') pieces.push({ vals: [lit], quoted: dq, exp: false });
      lit = '';
    };
    let i = 0;
    while (i < n) {
      const c = s[i]!;
      if (c === '\\') {
        const d = s[i + 1];
        if (d === undefined) {
          lit += '\\';
          i++;
        } else if (d === '\n') i += 2;
        else if (dq && !'$`"\\'.includes(d)) {
          lit += `\\${d}`;
          i += 2;
        } else {
          flush();
          pieces.push({ vals: [d], quoted: true, exp: false });
          i += 2;
        }
        continue;
      }
      if (c === "'" && !dq) {
        const e = skipSingle(s, i + 1);
        flush();
        pieces.push({ vals: [s.slice(i + 1, e - 1)], quoted: true, exp: false });
        i = e;
        continue;
      }
      if (c === '"' && !dq) {
        const e = skipDouble(s, i + 1);
        flush();
        pieces.push({ vals: [''], quoted: true, exp: false });
        this.scan(s.slice(i + 1, e - 1), pieces, true);
        i = e;
        continue;
      }
      if (c === '`') {
        const e = skipBacktick(s, i + 1);
        flush();
        this.substitution(unBacktick(s.slice(i + 1, e - 1)), 'backtick', dq, pieces);
        i = e;
        continue;
      }
      if ((c === '<' || c === '>') && s[i + 1] === '(' && !dq) {
        const e = skipParen(s, i + 2);
        flush();
        this.nested.push({ text: s.slice(i + 2, e - 1), origin: 'process-substitution' });
        pieces.push({ vals: ['/dev/fd/63'], quoted: true, exp: true, pipe: true });
        i = e;
        continue;
      }
      if (c === '$') {
        const d = s[i + 1];
        if (d === '"' && !dq) {
          // `$"…"` is a translatable string: bash reads it as "…".
          i++;
          continue;
        }
        if (d === "'" && !dq) {
          const e = skipAnsi(s, i + 2);
          flush();
          pieces.push({ vals: [decodeAnsi(s.slice(i + 2, e - 1))], quoted: true, exp: false });
          i = e;
          continue;
        }
        if (d === '(') {
          const e = skipParen(s, i + 2);
          flush();
          if (s[i + 2] === '(' && s[e - 2] === ')') {
            this.nested.push({ text: s.slice(i + 3, e - 2), origin: 'arithmetic' });
            pieces.push({ vals: [''], quoted: dq, exp: true, unknown: 'the path is built from arithmetic' });
          } else this.substitution(s.slice(i + 2, e - 1), 'substitution', dq, pieces);
          i = e;
          continue;
        }
        if (d === '{') {
          const e = skipBrace(s, i + 2);
          flush();
          this.braced(s.slice(i + 2, e - 1), dq, pieces);
          i = e;
          continue;
        }
        const m = d === undefined ? null : NAME.exec(s.slice(i + 1));
        if (m) {
          flush();
          this.variable(m[0], dq, pieces);
          i += 1 + m[0].length;
          continue;
        }
        if (d !== undefined && /[0-9@*#]/.test(d)) {
          // Positional parameters are known inside `bash -c SCRIPT ARGS…`; elsewhere the lookup fails.
          flush();
          const v = this.lookup(d);
          if (v === null || v === undefined)
            pieces.push({ vals: [''], quoted: dq, exp: true, unknown: `cannot know $${d}` });
          else pieces.push({ vals: v, quoted: dq, exp: true });
          i += 2;
          continue;
        }
        if (d !== undefined && /[?$!-]/.test(d)) {
          flush();
          pieces.push({ vals: [''], quoted: dq, exp: true, unknown: `cannot know $${d}` });
          i += 2;
          continue;
        }
        lit += '$';
        i++;
        continue;
      }
      lit += c;
      i++;
    }
    flush();
  }
}

const GLOB = /[*?[]/;
/** Marks a variable value that is a glob pattern standing for its matches (a `for` loop over a glob). */
export const GLOB_MARK = '\u0001';
const GLOB_MARK_CODE = 1;

function firstGlob(text: string): number {
  for (let k = 0; k < text.length; k++) {
    const c = text[k];
    if (c === '*' || c === '?') return k;
    if (c === '[' && text.indexOf(']', k + 2) !== -1) return k;
  }
  return -1;
}

/** Joins pieces into fields: unquoted expansion results are split on blanks; unquoted text may glob. */
function toFields(raw: string, pieces: Piece[], choice: readonly string[], out: Field[]): void {
  let cur: Field | undefined;
  const start = (): Field => {
    cur ??= { value: '', raw, glob: -1, tilde: false };
    return cur;
  };
  const unknown = pieces.find((p) => p.unknown)?.unknown;
  pieces.forEach((p, k) => {
    let v = choice[k]!;
    // A loop variable over a glob (`for f in *.ts`) stands for whatever the glob matched, quoted or not.
    const globbed = v.charCodeAt(0) === GLOB_MARK_CODE;
    if (globbed) {
      v = v.slice(1);
      const f = start();
      if (f.glob === -1) {
        const g = firstGlob(v);
        f.glob = f.value.length + (g === -1 ? 0 : g);
      }
      f.value += v;
      return;
    }
    if (!p.quoted && p.exp && unknown === undefined && /[ \t\n]/.test(v)) {
      const parts = v.split(/[ \t\n]+/);
      parts.forEach((part, idx) => {
        if (idx > 0 && cur) {
          out.push(cur);
          cur = undefined;
        }
        if (part !== '') {
          const f = start();
          if (f.glob === -1 && GLOB.test(part)) {
            const g = firstGlob(part);
            if (g !== -1) f.glob = f.value.length + g;
          }
          f.value += part;
        }
      });
      return;
    }
    const f = p.quoted || p.unknown !== undefined || v !== '' ? start() : cur;
    if (!f) return;
    if (!p.quoted && f.glob === -1 && GLOB.test(v)) {
      const g = firstGlob(v);
      if (g !== -1) f.glob = f.value.length + g;
    }
    f.value += v;
  });
  if (cur) out.push(cur);
  const first = pieces[0];
  const whole = out.length === 1 ? out[0] : undefined;
  for (const f of out) {
    if (unknown !== undefined) f.uncertain = unknown;
  }
  if (whole && pieces.length === 1 && first?.pipe) {
    whole.pipe = true;
    delete whole.uncertain;
  } else if (pieces.some((p) => p.pipe)) {
    for (const f of out) f.uncertain ??= 'a process substitution inside a word';
  }
  // An unquoted `~` prefix is expanded by core's resolver (tilde: true); a quoted one stays literal.
  const head = out[0];
  if (head && first && !first.quoted && !first.exp && first.vals[0]!.startsWith('~')) {
    const slash = first.vals[0]!.includes('/');
    if (slash || pieces.length === 1) head.tilde = true;
  }
}

/**
 * Expands one word the way bash does — brace expansion, tilde, parameters, command substitution (value
 * unknown), quote removal, field splitting, glob detection — and reports the nested commands to analyse.
 */
export function expandWord(raw: string, lookup: Lookup): Expanded {
  const ex = new WordExpander(lookup);
  const fields: Field[] = [];
  let alts: string[];
  try {
    alts = braceExpand(raw);
  } catch (err) {
    if (!(err instanceof TooManyExpansions)) throw err;
    ex.scan(raw, []);
    return {
      fields: [{ value: raw, raw, glob: -1, tilde: false, uncertain: 'brace expansion too large' }],
      nested: ex.nested,
    };
  }
  for (const alt of alts) {
    const pieces: Piece[] = [];
    ex.scan(alt, pieces);
    let combos = 1;
    for (const p of pieces) combos *= p.vals.length;
    if (combos > MAX_COMBINATIONS) {
      fields.push({
        value: alt,
        raw,
        glob: -1,
        tilde: false,
        uncertain: 'too many variable values to enumerate',
      });
      continue;
    }
    const choice: string[] = pieces.map((p) => p.vals[0]!);
    const rec = (k: number) => {
      if (k === pieces.length) {
        toFields(raw, pieces, choice, fields);
        return;
      }
      for (const v of pieces[k]!.vals) {
        choice[k] = v;
        rec(k + 1);
      }
    };
    rec(0);
  }
  return { fields, nested: ex.nested };
}

/**
 * A field as a variable's value (from `for`, `env X=…`, `export X=…`, `bash -c … ARGS`): `null` when not
 * known; a glob keeps standing for its matches, so `"$X"` later is judged as the glob's directory.
 */
export function fieldAsValue(f: Field, offset = 0): string | null {
  if (f.uncertain !== undefined || f.under || f.pipe) return null;
  const value = f.value.slice(offset);
  return f.glob >= offset ? GLOB_MARK + value : value;
}

/** The value of an assignment's right-hand side: no splitting, no globbing; `null` when unknown. */
export function expandAssignment(
  valueText: string,
  lookup: Lookup,
): { values: string[] | null; nested: Nested[] } {
  const ex = new WordExpander(lookup);
  const pieces: Piece[] = [];
  try {
    ex.scan(valueText, pieces);
  } catch (err) {
    if (err instanceof ShellParseError) return { values: null, nested: ex.nested };
    throw err;
  }
  if (
    valueText.startsWith('(') ||
    pieces.some((p) => p.unknown || p.vals.some((v) => v.includes(GLOB_MARK)))
  ) {
    return { values: null, nested: ex.nested };
  }
  let values = [''];
  for (const p of pieces) {
    const next: string[] = [];
    for (const a of values) for (const v of p.vals) next.push(a + v);
    values = next;
    if (values.length > MAX_COMBINATIONS) return { values: null, nested: ex.nested };
  }
  return { values, nested: ex.nested };
}

/** The command substitutions an unquoted heredoc body runs (it expands like text in double quotes). */
export function heredocSubstitutions(body: string, lookup: Lookup): Nested[] {
  const ex = new WordExpander(lookup);
  ex.scan(body, [], true);
  return ex.nested;
}
