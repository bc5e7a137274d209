import { lstatSync, readdirSync, realpathSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Access } from '@toolgate/core';
import type { KernelAccess } from './traceCommand.js';

/** A certain access of the extraction, with what its subtree walk would reach (captured before the run). */
export interface Claim {
  access: Access;
  root: string;
  /** followLinks subtrees: real targets of the links beneath the root, which the policy's walk judges too. */
  linkTargets: string[];
}

/** True when `p` is `root` or lies beneath it, by path component. */
export function isWithin(p: string, root: string): boolean {
  if (root === '/') return true;
  return p === root || p.startsWith(`${root}/`);
}

/**
 * The claims of an extraction, taken before the command runs: that is when a guard would walk the tree.
 * Uncertain accesses are not claims (an extraction with any of them is denied as a whole).
 */
export function claimsOf(accesses: readonly Access[]): Claim[] {
  return accesses
    .filter((a) => a.certain && a.realPath !== null)
    .map((a) => {
      const root = a.realPath as string;
      return {
        access: a,
        root,
        linkTargets: a.scope === 'subtree' && a.followLinks ? linkTargetsBeneath(root) : [],
      };
    });
}

function linkTargetsBeneath(root: string, budget = { n: 2000 }): string[] {
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    if (depth > 20 || budget.n-- <= 0) return;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const p = join(dir, name);
      try {
        const st = lstatSync(p);
        if (st.isSymbolicLink()) {
          const real = realpathSync.native(p);
          if (!out.includes(real) && !isWithin(real, root)) {
            out.push(real);
            walk(real, depth + 1);
          }
        } else if (st.isDirectory()) walk(p, depth + 1);
      } catch {
        // A dangling link reaches nothing.
      }
    }
  };
  walk(root, 0);
  return out;
}

function opCovers(claimed: Access['op'], seen: KernelAccess['op']): boolean {
  if (seen === 'write') return claimed === 'write';
  if (seen === 'read') return claimed === 'read' || claimed === 'write';
  return true;
}

/**
 * Whether one kernel access is covered by a claim: same op class (write covers read; any op covers a list or
 * stat), and the kernel's real path is the claimed path, or beneath a claimed subtree the program's walk
 * really judges (not skipped by its filter; through links only where the program follows them).
 */
export function isCovered(k: KernelAccess, claims: readonly Claim[]): boolean {
  return claims.some((c) => {
    if (!opCovers(c.access.op, k.op)) return false;
    if (k.path === c.root) return true;
    if (c.access.scope !== 'subtree') return false;
    const inside =
      isWithin(k.path, c.root) ||
      ((c.access.followLinks === true || c.access.unknownContents !== undefined) &&
        isWithin(k.named, c.root)) ||
      c.linkTargets.some((t) => isWithin(k.path, t));
    if (!inside) return false;
    const filter = c.access.filter;
    if (filter === undefined || c.access.unknownContents !== undefined || !isWithin(k.path, c.root))
      return true;
    const rel = relative(c.root, k.path);
    // getdents64 ran on it: a directory, even if the scratch tree is gone by now.
    let isDir = k.op === 'list';
    try {
      isDir ||= lstatSync(k.path).isDirectory();
    } catch {
      // Gone after the run: judged as a file.
    }
    return rel === '' || !filter.skips(rel, isDir);
  });
}
