import { skipAnsi, skipBacktick, skipBrace, skipDouble, skipParen, skipSingle } from '../lex/scanNested.js';

/** Thrown when a word expands to more alternatives than we are willing to enumerate. */
export class TooManyExpansions extends Error {}

const MAX = 256;

/** Skips one quoted or substituted construct starting at `i`, or returns -1 if there is none there. */
function skipConstruct(s: string, i: number): number {
  const c = s[i];
  if (c === '\\') return i + 2;
  if (c === "'") return skipSingle(s, i + 1);
  if (c === '"') return skipDouble(s, i + 1);
  if (c === '`') return skipBacktick(s, i + 1);
  if (c === '$') {
    const d = s[i + 1];
    if (d === '(') return skipParen(s, i + 2);
    if (d === '{') return skipBrace(s, i + 2);
    if (d === "'") return skipAnsi(s, i + 2);
  }
  return -1;
}

function sequence(body: string): string[] | undefined {
  const m = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$/.exec(body);
  if (!m) return undefined;
  const [, a, b, stepText] = m as unknown as [string, string, string, string | undefined];
  const numeric = /\d/.test(a);
  if (numeric !== /\d/.test(b)) return undefined;
  const from = numeric ? Number(a) : a.charCodeAt(0);
  const to = numeric ? Number(b) : b.charCodeAt(0);
  const step = Math.abs(Number(stepText ?? 1)) || 1;
  const count = Math.floor(Math.abs(to - from) / step) + 1;
  if (count > MAX) throw new TooManyExpansions();
  const out: string[] = [];
  const dir = to >= from ? 1 : -1;
  for (let k = 0; k < count; k++) {
    const v = from + dir * k * step;
    out.push(numeric ? String(v) : String.fromCharCode(v));
  }
  return out;
}

/**
 * Brace expansion on a word's source text (before any other expansion, as bash does):
 * `/{etc,tmp}/x` is two words. Quoted braces and `${…}` are left alone.
 */
export function braceExpand(s: string, out: string[] = []): string[] {
  if (!s.includes('{')) {
    out.push(s);
    return out;
  }
  let i = 0;
  while (i < s.length) {
    const skipped = skipConstruct(s, i);
    if (skipped !== -1) {
      i = skipped;
      continue;
    }
    if (s[i] !== '{') {
      i++;
      continue;
    }
    // Find the matching `}` and the top-level commas.
    let depth = 1;
    let j = i + 1;
    const commas: number[] = [];
    while (j < s.length && depth > 0) {
      const sk = skipConstruct(s, j);
      if (sk !== -1) {
        j = sk;
        continue;
      }
      const c = s[j];
      if (c === '{') depth++;
      else if (c === '}') depth--;
      else if (c === ',' && depth === 1) commas.push(j);
      if (depth > 0) j++;
    }
    if (depth !== 0) break;
    const body = s.slice(i + 1, j);
    let alts: string[] | undefined;
    if (commas.length > 0) {
      alts = [];
      let from = i + 1;
      for (const c of commas) {
        alts.push(s.slice(from, c));
        from = c + 1;
      }
      alts.push(s.slice(from, j));
    } else alts = sequence(body);
    if (alts === undefined) {
      i++;
      continue;
    }
    const prefix = s.slice(0, i);
    const suffix = s.slice(j + 1);
    for (const alt of alts) {
      braceExpand(prefix + alt + suffix, out);
      if (out.length > MAX) throw new TooManyExpansions();
    }
    return out;
  }
  out.push(s);
  return out;
}
