import { isWithin } from '@toolgate/core';
import type { PolicyRule } from './types.js';

export interface MisanchoredBlock {
  message: string;
  source: string;
}

const GLOB = /[*?[\]{}]/;

/**
 * Deny and `!` rules written from `/` that were meant under an allowed root: seed 001's own example pairs
 * `~/workspace/**` with `!/workspace/sensitive/*` and says "`/home/user/workspace/sensitive/secret.txt` → Rule 2
 * matches (negation) → DENY" — but `/workspace/sensitive/*` is not under `/home/user/workspace`, so that file is
 * allowed. A deny whose first directory is the last directory of an allowed root, and that lies outside that
 * root, is flagged with the pattern it most likely meant.
 *
 * `expanded` holds each rule's pattern with `~`, `<workspace>` and variables substituted (undefined: invalid).
 */
export function misanchoredBlocks(
  rules: readonly PolicyRule[],
  expanded: readonly (string | undefined)[],
): MisanchoredBlock[] {
  const roots: { rule: PolicyRule; root: string; base: string }[] = [];
  rules.forEach((r, i) => {
    const e = expanded[i];
    if (r.block || (r.access !== 'read' && r.access !== 'write') || !e?.endsWith('/**')) return;
    const root = e.slice(0, -3);
    const base = root.slice(root.lastIndexOf('/') + 1);
    if (root.startsWith('/') && base !== '' && !GLOB.test(root)) roots.push({ rule: r, root, base });
  });
  const out: MisanchoredBlock[] = [];
  rules.forEach((d, i) => {
    const e = expanded[i];
    if (!(d.block || d.access === 'deny') || !e?.startsWith('/') || !d.pattern.startsWith('/')) return;
    const first = e.split('/')[1];
    if (!first || GLOB.test(first)) return;
    for (const a of roots) {
      if (a.base !== first || isWithin(e.replace(/\/\*\*$|\/\*$/, ''), a.root)) continue;
      // The allowed root as its author wrote it (`~/workspace`), and the deny's tail after its first directory.
      const written = a.rule.pattern.slice(0, -3);
      const tail = d.pattern.slice(1 + first.length);
      const dir = tail
        .split('/')
        .filter((s, k, all) => s !== '' && !all.slice(0, k + 1).some((x) => GLOB.test(x)));
      const example = [written, ...dir].join('/');
      out.push({
        message:
          `${d.block ? '!' : ''}${d.pattern} does not lie under the allowed root ${a.rule.pattern}: files under ` +
          `${example} are allowed by it, not denied — did you mean ${d.block ? '!' : ''}${written}${tail}?`,
        source: d.source,
      });
    }
  });
  return out;
}
