import { isAbsolute, join } from 'node:path';

const GLOB_CHARS = /[*?[\]{}]/;

/**
 * The directory a glob can reach: its literal prefix under `base`. A `..` after the first wildcard could
 * climb anywhere, so it makes the call uncertain rather than guessing.
 */
export function globRoot(pattern: string, base: string): string | undefined {
  const segments = pattern.split('/');
  const literal: string[] = [];
  let i = 0;
  for (; i < segments.length; i++) {
    const segment = segments[i] ?? '';
    if (GLOB_CHARS.test(segment)) break;
    literal.push(segment);
  }
  if (segments.slice(i).some((s) => s === '..')) return undefined;
  // A fully literal pattern names one path; keep its last segment (it is the path searched).
  const prefix = literal.join('/');
  if (isAbsolute(pattern)) return prefix === '' ? '/' : prefix;
  return join(base, prefix || '.');
}
