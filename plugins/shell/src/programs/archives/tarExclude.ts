import type { SubtreeFilter } from '@toolgate/core';
import type { Field } from '../../state/expandWord.js';
import { fnmatch } from '../fnmatch.js';

/**
 * The `--exclude` patterns in force for each member operand of `tar -c`. GNU tar's exclusions are
 * positional (since 1.30 an `--exclude` after a member does not apply to it) and, by default, unanchored
 * with wildcards matching `/`: a pattern excludes a member when it matches the member's name from any
 * `/` on (`--exclude=.env` drops every `.env`, at any depth, with what lies beneath it).
 */
export function tarExcludes(
  argv: readonly Field[],
  members: readonly Field[],
): Map<Field, SubtreeFilter & { excludesRoot: boolean }> {
  const out = new Map<Field, SubtreeFilter & { excludesRoot: boolean }>();
  const patterns: string[] = [];
  let nocase = false;
  let anchored = false;
  let unknown = false;
  for (let k = 0; k < argv.length; k++) {
    const f = argv[k]!;
    const v = f.value;
    if (f.uncertain !== undefined && !members.includes(f)) unknown = true;
    if (v === '--ignore-case') nocase = true;
    else if (v === '--anchored' || v === '--no-wildcards' || v === '--no-wildcards-match-slash')
      anchored = true;
    else if (v.startsWith('--exclude=')) patterns.push(v.slice('--exclude='.length));
    else if (v === '--exclude' && argv[k + 1]) patterns.push(argv[++k]!.value);
    else if (
      members.includes(f) &&
      patterns.length > 0 &&
      !anchored &&
      !unknown &&
      f.uncertain === undefined
    ) {
      const res = patterns.map((p) => fnmatch(p, nocase));
      const root = f.value.replace(/\/+$/, '');
      const excluded = (name: string): boolean => {
        for (let at = 0; ; ) {
          if (res.some((r) => r.test(name.slice(at)))) return true;
          const slash = name.indexOf('/', at);
          if (slash === -1) return false;
          at = slash + 1;
        }
      };
      out.set(f, {
        name: `tar --exclude ${patterns.join(' ')}`,
        skips: (rel) => excluded(`${root}/${rel}`),
        // A member named on the command line is excluded too (`tar cf a.tar --exclude='*.env' .env` adds nothing).
        excludesRoot: root !== '' && root !== '.' && excluded(root),
      });
    }
  }
  return out;
}

/**
 * Which members `tar -x` leaves out by `--exclude` (GNU tar 1.34: unanchored, wildcards matching `/`, a
 * match of a leading directory excluding what lies beneath — `--exclude=.env.d` drops `src/.env.d/x`;
 * checked by extracting). Only the patterns before the first member operand are taken (fewer patterns
 * exclude less: never more than tar does), and a name counts as excluded only when it matches both as
 * stored and with `./` and `/` removed. `undefined` when nothing is excluded or a switch changes the
 * matching (`--anchored`, `--no-wildcards`…) or a word is not known.
 */
export function tarExtractExcludes(
  argv: readonly Field[],
  operands: readonly Field[],
): ((name: string) => boolean) | undefined {
  const patterns: string[] = [];
  let nocase = false;
  for (let k = 0; k < argv.length; k++) {
    const f = argv[k]!;
    const v = f.value;
    if (operands.includes(f)) break;
    if (f.uncertain !== undefined) return undefined;
    if (v === '--ignore-case') nocase = true;
    else if (/^--(anchored|no-wildcards|no-wildcards-match-slash|no-ignore-case)$/.test(v)) return undefined;
    else if (v.startsWith('--exclude=')) patterns.push(v.slice('--exclude='.length));
    else if (v === '--exclude') {
      const next = argv[++k];
      if (!next || next.uncertain !== undefined) return undefined;
      patterns.push(next.value);
    }
  }
  if (patterns.length === 0) return undefined;
  const res = patterns.map((p) => fnmatch(p, nocase));
  // Every piece of the name from a `/` (or its start) to a `/` (or its end).
  const matches = (name: string): boolean => {
    const starts = [0];
    const ends: number[] = [];
    for (let i = 0; i < name.length; i++)
      if (name[i] === '/') {
        starts.push(i + 1);
        ends.push(i);
      }
    ends.push(name.length);
    return starts.some((s) => ends.some((e) => e > s && res.some((r) => r.test(name.slice(s, e)))));
  };
  return (name) => {
    const stored = name.replace(/\/+$/, '');
    const bare = stored.replace(/^(\.?\/)+/, '');
    return matches(stored) && matches(bare);
  };
}
