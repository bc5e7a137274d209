import { type Dirent, readdirSync, realpathSync, statSync } from 'node:fs';
import { type Access, monotonicMs } from '@toolgate/core';
import { tighter } from './levels.js';
import type { Evaluation, Outcome } from './types.js';

/** Bounds of one subtree walk. Over either bound the access gets the worst case (`SUBTREE_UNBOUNDED`). */
export interface SubtreeWalkOptions {
  /**
   * Directory entries read, over every directory of the walk (default 50,000: five 10,000-file
   * workspaces). The deterministic bound: the same tree always gets the same answer.
   */
  maxEntries?: number;
  /**
   * Wall-clock milliseconds (default 500). A safety net for slow filesystems (network mounts), set well
   * above a normal walk: its expiry depends on the machine's load, and a busy machine must not turn an
   * allowed call into a deny. A 10,000-file walk measured 45–60 ms median on a loaded 2-core VM where a
   * bare readdir walk of the same tree took 44 ms (test/bench/subtree.bench.ts).
   */
  maxMs?: number;
}

export const DEFAULT_WALK: Readonly<Required<SubtreeWalkOptions>> = { maxEntries: 50_000, maxMs: 500 };

/** One rule stricter than the root's own verdict, as the walk asks it. */
export interface WalkProbe {
  /** The rule matches this path (the real spelling, or the lexical one for `lexical` probes). */
  matches(path: string): boolean;
  /**
   * Present when the rule's match depends on the last component alone (`**\/.env`): the walk asks it with
   * the entry's name and builds no path for an entry no probe matches.
   */
  matchesName?(name: string): boolean;
  /** The rule could match something at or beneath this directory: the walk descends only then. */
  couldMatchBeneath(dir: string): boolean;
  /** Tested against the path as written (a deny rule matched through the spelling, not the target). */
  readonly lexical: boolean;
}

/** What the walk needs for one directory it starts at (the root, or a followed link's target). */
export interface WalkScope {
  probes: readonly WalkProbe[];
  /**
   * Some entry beneath may match no rule and get a default stricter than the root's verdict: every
   * entry is judged and every directory entered (no pruning).
   */
  needAll: boolean;
}

/** The evaluator's side of a walk: how to judge one existing entry and which rules to ask where. */
export interface WalkPolicy {
  /** Judges one entry as a path access (the access's op; `list` is judged by the evaluator as read). */
  judge(entry: Access): Evaluation;
  /** Probes of rules that could make something beneath `real` stricter than `than`. */
  scope(real: string, lexical: string, op: Access['op'], than: Outcome): WalkScope;
}

export type WalkResult =
  | {
      kind: 'done';
      decision: Outcome;
      cause?: { path: string; lexical: string; eval: Evaluation };
      walked: number;
    }
  | { kind: 'unbounded'; reason: string; walked: number };

interface Pending {
  real: string;
  lexical: string;
  rel: string;
  scope: WalkScope;
}

const join = (dir: string, name: string) => (dir === '/' ? `/${name}` : `${dir}/${name}`);

/**
 * Walks what exists beneath a subtree access's root right now (`rootScope`: the rules to ask there), judging each entry the program would touch,
 * and returns the most restrictive verdict with the entry that caused it. Never cached: a file can appear
 * between two calls. Stops at the first deny; descends only where a stricter rule could match.
 */
export function walkSubtree(
  access: Access,
  real: string,
  own: Outcome,
  rootScope: WalkScope,
  policy: WalkPolicy,
  bounds: Readonly<Required<SubtreeWalkOptions>>,
): WalkResult {
  const start = monotonicMs();
  const op = access.op;
  const follow = access.followLinks === true;
  const filter = access.filter;
  let decision = own;
  let cause: { path: string; lexical: string; eval: Evaluation } | undefined;
  let walked = 0;
  // Real directories already entered: a followed link back into the walk (a loop) is not entered twice.
  const visited = follow ? new Set<string>([real]) : undefined;
  const stack: Pending[] = [{ real, lexical: access.path, rel: '', scope: rootScope }];

  const judge = (entryReal: string, entryLexical: string, onLink: boolean, scope: WalkScope): boolean => {
    if (!scope.needAll) {
      let hit = false;
      for (const p of scope.probes) {
        if (p.matches(p.lexical ? entryLexical : entryReal)) {
          hit = true;
          break;
        }
      }
      if (!hit) return false;
    }
    const { hops: _hops, ...rest } = access;
    const ev = policy.judge({
      ...rest,
      scope: 'path',
      path: entryLexical,
      realPath: entryReal,
      ...(onLink ? { onLink: true } : {}),
    });
    if (tighter(ev.decision, decision) !== decision) {
      decision = ev.decision;
      cause = { path: entryReal, lexical: entryLexical, eval: ev };
    }
    return decision === 'deny';
  };

  const descends = (dir: string, lexical: string, scope: WalkScope): boolean => {
    // A followed link anywhere beneath may lead out of what the rules prune: every directory is entered.
    if (scope.needAll || follow) return true;
    for (const p of scope.probes) if (p.couldMatchBeneath(p.lexical ? lexical : dir)) return true;
    return false;
  };

  while (stack.length > 0) {
    const dir = stack.pop() as Pending;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir.real, { withFileTypes: true });
    } catch (e) {
      return {
        kind: 'unbounded',
        reason: `cannot read directory ${dir.real} (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
        walked,
      };
    }
    walked += entries.length;
    if (walked > bounds.maxEntries)
      return { kind: 'unbounded', reason: `more than ${bounds.maxEntries} entries beneath ${real}`, walked };
    if (monotonicMs() - start > bounds.maxMs)
      return { kind: 'unbounded', reason: `walking ${real} took more than ${bounds.maxMs} ms`, walked };
    for (const d of entries) {
      const name = d.name;
      const isLink = d.isSymbolicLink();
      const isDir = !isLink && d.isDirectory();
      // The common entry costs no string: a plain file of a list (names are read, not files), or one no
      // rule can match by its name (what a filter would skip could not change the verdict either).
      if (!isDir && !isLink && (op === 'list' || unmatchedByName(dir.scope, name))) continue;
      const rel = dir.rel === '' ? name : `${dir.rel}/${name}`;
      const entryReal = join(dir.real, name);
      const entryLexical = join(dir.lexical, name);
      if (isLink && follow) {
        const target = followLink(entryReal);
        if (target === undefined) {
          // Dangling or looping: the program cannot open it; judged as the name it is.
          if (filter?.skips(rel, false)) continue;
          if (op !== 'list' && judge(entryReal, entryLexical, true, dir.scope)) return done();
          continue;
        }
        if (filter?.skips(rel, target.isDir)) continue;
        if (op === 'list' && !target.isDir) continue;
        // The target is judged where it really is, inside the root or not, by the rules that apply there.
        const scope = policy.scope(target.real, target.real, op, decision);
        if (judge(target.real, target.real, false, { probes: scope.probes, needAll: true })) return done();
        if (target.isDir && !visited?.has(target.real)) {
          visited?.add(target.real);
          if (descends(target.real, target.real, scope))
            stack.push({ real: target.real, lexical: target.real, rel, scope });
        }
        continue;
      }
      if (filter?.skips(rel, isDir)) continue;
      // A list reads names: the files beneath are not opened, only the directories are listed.
      if ((op !== 'list' || isDir) && judge(entryReal, entryLexical, isLink, dir.scope)) return done();
      if (isDir && descends(entryReal, entryLexical, dir.scope)) {
        if (visited) {
          if (visited.has(entryReal)) continue;
          visited.add(entryReal);
        }
        stack.push({ real: entryReal, lexical: entryLexical, rel, scope: dir.scope });
      }
    }
  }
  return done();

  function done(): WalkResult {
    return { kind: 'done', decision, ...(cause ? { cause } : {}), walked };
  }
}

/** Every probe of the scope matches by name alone and none matches this name (so no rule can judge the entry). */
function unmatchedByName(scope: WalkScope, name: string): boolean {
  if (scope.needAll) return false;
  for (const p of scope.probes) if (p.matchesName === undefined || p.matchesName(name)) return false;
  return true;
}

/** Where a link beneath the root leads, and whether that is a directory; `undefined` if it leads nowhere. */
function followLink(path: string): { real: string; isDir: boolean } | undefined {
  try {
    const real = realpathSync.native(path);
    return { real, isDir: statSync(real).isDirectory() };
  } catch {
    return undefined;
  }
}
