/**
 * curl's own URL globbing (curl(1) "URL", tool_urlglob.c), which it applies unless `-g`/`--globoff`:
 * `{a,b,c}` sets and `[a-z]` / `[0-9]` / `[001-100]` / `[1-9:2]` ranges, `\` escaping a bracket or brace,
 * `[…]` holding an IPv6 address left alone. Each expanded URL is fetched, and `#N` in `-o` stands for the
 * N-th glob's value (strace, curl 7.88: `-O /f[1-2].txt` wrote f1.txt and f2.txt, `-o 'o#1.txt'` o1.txt and
 * o2.txt, `-g` the literal `f[1-2].txt`).
 */
export interface GlobExpansion {
  url: string;
  /** The value of each glob in the URL, in order (`#1` is `values[0]`). */
  values: string[];
}

/** At most this many URLs are listed; more is judged as names not known (a subtree). */
export const MAX_GLOB_URLS = 1000;

type Piece = string | string[];

function range(body: string): string[] | undefined {
  const m = /^(?:([a-zA-Z])-([a-zA-Z])|(\d+)-(\d+))(?::(\d+))?$/.exec(body);
  if (!m) return undefined;
  const step = m[5] === undefined ? 1 : Number(m[5]);
  if (step < 1) return undefined;
  const out: string[] = [];
  if (m[1] !== undefined) {
    const a = m[1].charCodeAt(0);
    const b = m[2]!.charCodeAt(0);
    // Both ends of one case, as curl requires.
    if (/[a-z]/.test(m[1]) !== /[a-z]/.test(m[2]!) || b < a) return undefined;
    for (let c = a; c <= b && out.length <= MAX_GLOB_URLS; c += step) out.push(String.fromCharCode(c));
    return out;
  }
  const lo = Number(m[3]);
  const hi = Number(m[4]);
  if (hi < lo) return undefined;
  // A leading zero pads every number to the width of the first one.
  const width = m[3]!.startsWith('0') ? m[3]!.length : 0;
  for (let n = lo; n <= hi && out.length <= MAX_GLOB_URLS; n += step)
    out.push(String(n).padStart(width, '0'));
  return out;
}

function pieces(url: string): Piece[] | undefined {
  const out: Piece[] = [];
  let lit = '';
  for (let i = 0; i < url.length; i++) {
    const c = url[i]!;
    if (c === '\\' && i + 1 < url.length && '[]{}'.includes(url[i + 1]!)) {
      lit += url[++i];
    } else if (c === '{' || c === '[') {
      const close = url.indexOf(c === '{' ? '}' : ']', i + 1);
      if (close < 0) return undefined;
      const body = url.slice(i + 1, close);
      // `[::1]`, `[fe80::1%25eth0]`: an IPv6 address, not a range.
      if (c === '[' && /^[0-9a-fA-F:.]*:[0-9a-fA-F:.%a-zA-Z]*$/.test(body)) {
        lit += url.slice(i, close + 1);
        i = close;
        continue;
      }
      if (/[{[]/.test(body)) return undefined; // curl refuses nested globs
      const set = c === '{' ? body.split(',') : range(body);
      if (!set || set.length === 0) return undefined;
      out.push(lit, set);
      lit = '';
      i = close;
    } else if (c === '}' || c === ']')
      return undefined; // an unmatched close: curl reports a bad glob
    else lit += c;
  }
  out.push(lit);
  return out;
}

/** The URLs a curl URL argument stands for; `undefined` when malformed or more than `MAX_GLOB_URLS`. */
export function expandUrlGlob(url: string): GlobExpansion[] | undefined {
  const ps = pieces(url);
  if (!ps) return undefined;
  let acc: GlobExpansion[] = [{ url: '', values: [] }];
  for (const p of ps) {
    if (typeof p === 'string') {
      acc = acc.map((e) => ({ url: e.url + p, values: e.values }));
      continue;
    }
    if (acc.length * p.length > MAX_GLOB_URLS) return undefined;
    acc = acc.flatMap((e) => p.map((v) => ({ url: e.url + v, values: [...e.values, v] })));
  }
  return acc;
}

/** `-o` with `#N`: the N-th glob's value replaces `#N` (a `#N` past the globs stays as written). */
export function fillTemplate(template: string, values: readonly string[]): string {
  return template.replace(/#(\d+)/g, (all, n: string) => values[Number(n) - 1] ?? all);
}
