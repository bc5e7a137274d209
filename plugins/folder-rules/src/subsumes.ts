import { hasMagic } from './patterns.js';

/**
 * Whether every path `b` matches is also matched by `a`, decided for the common pattern shapes
 * (`P/**`, `P/*`, literal paths, `/**`); anything else answers false, so lint never claims a shadow it
 * cannot prove. Both patterns are expanded and normalised.
 */
export function subsumes(a: string, b: string, nocase = false): boolean {
  if (nocase) {
    a = a.toLowerCase();
    b = b.toLowerCase();
  }
  if (a === b) return true;
  if (a === '/**') return b.startsWith('/');
  if (a.endsWith('/**')) {
    const root = a.slice(0, -3);
    if (hasMagic(root)) return false;
    return b === root || b.startsWith(`${root}/`);
  }
  if (a.endsWith('/*')) {
    const root = a.slice(0, -2);
    if (hasMagic(root) || !b.startsWith(`${root}/`)) return false;
    const rest = b.slice(root.length + 1);
    return rest.length > 0 && !rest.includes('/') && !rest.includes('**');
  }
  return false;
}
