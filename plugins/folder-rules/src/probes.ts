import type { CompiledPattern } from './patterns.js';
import type { WalkProbe } from './subtreeWalk.js';

/** `/**\/name` with a literal name: matches by the last component alone, the common secret-file rule. */
const NAME_ONLY = /^\/\*\*\/([^/*?[\]{}()!+@\\]+)$/;

/**
 * A compiled rule as the subtree walk asks it. An unanchored `**\/name` rule compares the entry's name only
 * (no glob engine, no stat) and never prunes; any other rule asks its matchers, and minimatch's partial
 * match says whether a directory could hold something it matches.
 */
export function probeOf(c: CompiledPattern, lexical: boolean): WalkProbe {
  const only = c.patterns.length === 1 ? NAME_ONLY.exec(c.patterns[0] as string) : null;
  const literal = only?.[1];
  if (literal !== undefined) {
    const want = c.nocase ? literal.toLowerCase() : literal;
    const matchesName = (name: string) =>
      name.length === want.length && (c.nocase ? name.toLowerCase() : name) === want;
    return {
      lexical,
      matches: (path) => matchesName(path.slice(path.lastIndexOf('/') + 1)),
      matchesName,
      couldMatchBeneath: () => true,
    };
  }
  return {
    lexical,
    matches(path) {
      for (const m of c.matchers) if (m.match(path)) return true;
      for (const m of c.bases) if (m.match(path)) return true;
      return false;
    },
    couldMatchBeneath(dir) {
      for (const m of c.matchers) if (m.match(dir, true)) return true;
      for (const m of c.bases) if (m.match(dir)) return true;
      return false;
    },
  };
}
