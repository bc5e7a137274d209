import { ToolgateError } from '@toolgate/core';
import type { PolicyRule } from './types.js';

/** Longest pattern accepted: longer than any real path (PATH_MAX is 4096), far below minimatch's own limit. */
export const MAX_PATTERN_LENGTH = 4096;
/** Most patterns one glob may expand to through braces: each is one more matcher tried on every call. */
export const MAX_BRACE_EXPANSIONS = 256;
/** Deepest nesting of braces or extglob groups. */
export const MAX_GLOB_NESTING = 16;

const RANGE = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$/;

interface Scan {
  count: number;
  next: number;
  stop: ',' | '}' | 'end';
  depth: number;
}

function rangeSize(body: string): number {
  const m = RANGE.exec(body);
  if (!m) return 1; // `{a}`, `{}`: braces minimatch keeps literally
  const [, a = '', b = '', step] = m;
  const num = /^-?\d+$/.test(a) && /^-?\d+$/.test(b);
  const from = num ? Number(a) : a.charCodeAt(0);
  const to = num ? Number(b) : b.charCodeAt(0);
  const by = Math.max(1, Math.abs(Number(step ?? 1)) || 1);
  return Math.floor(Math.abs(to - from) / by) + 1;
}

// Products are clamped: only "over the limit" matters, and 2^1000 must not become Infinity * 0 = NaN.
const CLAMP = 1e15;

function scanSeq(s: string, from: number, inGroup: boolean, depth: number): Scan {
  let count = 1;
  let deepest = depth;
  let i = from;
  while (i < s.length) {
    const c = s[i];
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (inGroup && (c === ',' || c === '}')) return { count, next: i, stop: c, depth: deepest };
    if (c === '{' && depth < MAX_GLOB_NESTING + 1) {
      const group = scanGroup(s, i + 1, depth + 1);
      if (group) {
        count = Math.min(CLAMP, count * group.count);
        deepest = Math.max(deepest, group.depth);
        i = group.next;
        continue;
      }
    }
    i++;
  }
  return { count, next: i, stop: 'end', depth: deepest };
}

/** A `{…}` group from just after its `{`: the sum of its alternatives, or undefined when never closed. */
function scanGroup(
  s: string,
  from: number,
  depth: number,
): { count: number; next: number; depth: number } | undefined {
  let sum = 0;
  let alternatives = 0;
  let deepest = depth;
  let i = from;
  for (;;) {
    const seq = scanSeq(s, i, true, depth);
    alternatives++;
    sum = Math.min(CLAMP, sum + seq.count);
    deepest = Math.max(deepest, seq.depth);
    if (seq.stop === ',') {
      i = seq.next + 1;
      continue;
    }
    if (seq.stop === 'end') return undefined; // an unclosed `{` is a literal character
    const count = alternatives === 1 ? rangeSize(s.slice(from, seq.next)) : sum;
    return { count, next: seq.next + 1, depth: deepest };
  }
}

/** How many patterns brace expansion turns `pattern` into (clamped at 1e15), without expanding it. */
export function braceExpansions(pattern: string): { count: number; depth: number } {
  const scan = scanSeq(pattern, 0, false, 0);
  return { count: scan.count, depth: scan.depth };
}

function extglobDepth(pattern: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (c === '(' && i > 0 && '?*+@!'.includes(pattern[i - 1] as string))
      deepest = Math.max(deepest, ++depth);
    else if (c === ')' && depth > 0) depth--;
  }
  return deepest;
}

/**
 * Rejects at load a glob whose expansion or matching cost has no useful bound — a brace bomb (`{a,b}` thirty
 * times is 2^30 patterns), a pattern longer than any path, groups nested beyond reason — naming the rule.
 * Accepted at load, such a glob failed every later call with PLUGIN_ERROR ("pattern is too long").
 */
export function checkGlobCost(rule: PolicyRule): void {
  const p = rule.pattern;
  const fail = (why: string) =>
    new ToolgateError(
      'TOOLGATE_ERR_INVALID_CONFIG',
      `${rule.source}: pattern ${JSON.stringify(p.length > 120 ? `${p.slice(0, 117)}...` : p)} ${why}`,
      { source: rule.source, field: 'pattern' },
    );
  if (p.length > MAX_PATTERN_LENGTH)
    throw fail(`is ${p.length} characters long; at most ${MAX_PATTERN_LENGTH} are allowed`);
  const braces = braceExpansions(p);
  if (braces.depth > MAX_GLOB_NESTING || extglobDepth(p) > MAX_GLOB_NESTING)
    throw fail(`nests groups more than ${MAX_GLOB_NESTING} deep`);
  if (braces.count > MAX_BRACE_EXPANSIONS) {
    const n = braces.count >= CLAMP ? 'more than 10^15' : String(braces.count);
    throw fail(
      `expands to ${n} patterns through its braces; at most ${MAX_BRACE_EXPANSIONS} are allowed: split it into several rules`,
    );
  }
}
