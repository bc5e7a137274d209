import { type Access, isWithin, type SubtreeFilter } from '@toolgate/core';

/** Origins of git's writes into its own git dir (by kind: ../programs/vcs/git/git.ts, gitDirAccesses). */
export const GIT_OWN: readonly string[] = ['git:git-dir', 'git:git-tracking', 'git:git-head'];

/** Whether `path` (inside `root`) is hidden from a walk by `filter`: it or one of its ancestors is skipped. */
export function filteredOut(filter: SubtreeFilter | undefined, root: string, path: string): boolean {
  if (filter === undefined || path === root) return false;
  const rel = path.slice(root === '/' ? 1 : root.length + 1);
  for (let end = rel.indexOf('/'); end !== -1; end = rel.indexOf('/', end + 1))
    if (filter.skips(rel.slice(0, end), true)) return true;
  return filter.skips(rel, true);
}

const GIT_WORKTREE = /:git:[^:]+:worktree$/;

/** Where each access stands in the line: its command's number, and which ones may run out of order. */
export interface AccessOrder {
  readonly commandOf: ReadonlyMap<Access, number>;
  /** Accesses of loop bodies, pipeline parts and background jobs. */
  readonly unordered: ReadonlySet<Access>;
  /** Writes that only remove what they name. */
  readonly removals: ReadonlySet<Access>;
}

/**
 * A subtree access is judged against what exists beneath it at check time — unless another command of the
 * same line writes a whole subtree into or over it first (`cp -r other/ ws/ && tar czf x ws`, `git clone … ws/d`,
 * `tar -x -C ws`), or creates a link inside it that a walk following links would go through (`ln -s ~/.ssh
 * ws/k && tar czhf a ws`): then what the walk would see is not what the program will meet, and the policy
 * must take the worst case. Not counted: a command's own writes (`find . -delete` walks what exists); writes
 * of single paths, which are judged themselves; writes the walk's filter skips (`.git` for a worktree walk);
 * git's writes into its own git dir, whose names git makes (hex objects, refs that may not start with a
 * dot), so they cannot bring a name a rule denies; removals (`rm -rf dist && cp -r src dist`: rm can only
 * take names away); and writes of a command that runs after the walk (`rm -rf node_modules && npm install`)
 * — unless a loop, a pipeline or `&` lets either run in another order. Nor git's worktree writes before another
 * git worktree walk: git brings names of its own trees only.
 */
export function markUnknownContents(accesses: readonly Access[], order: AccessOrder): void {
  let writers: Access[] | undefined;
  for (const a of accesses) {
    if (a.op !== 'write' || !a.certain || a.realPath === null || GIT_OWN.some((o) => a.origin.endsWith(o)))
      continue;
    if (order.removals.has(a)) continue;
    if (a.scope === 'subtree' || a.onLink === true) {
      writers ??= [];
      writers.push(a);
    }
  }
  if (!writers) return;
  for (const a of accesses) {
    if (a.scope !== 'subtree' || !a.certain || a.realPath === null || a.unknownContents) continue;
    const own = order.commandOf.get(a) ?? 0;
    const fixed = !order.unordered.has(a);
    for (const w of writers) {
      const seq = order.commandOf.get(w) ?? 0;
      if (w === a || seq === own) continue;
      // git writing the worktree and git walking it (`git stash && … ; git stash pop`): git brings only names
      // of its own trees, which its walks judge as tracked names (the documented checkout limit).
      if (GIT_WORKTREE.test(w.origin) && GIT_WORKTREE.test(a.origin)) continue;
      if (seq > own && fixed && !order.unordered.has(w)) continue;
      const wr = w.realPath as string;
      // A single link or rename matters only to a walk that follows links beneath its root.
      if (w.scope !== 'subtree' && !a.followLinks) continue;
      const inside = isWithin(wr, a.realPath);
      // Nor a walk beneath what the writer's own filter keeps it out of (`git ls-files -z | xargs -0 sed -i`
      // writes tracked files only, never inside `.git`, which git's own read walks).
      if (
        inside
          ? filteredOut(a.filter, a.realPath, wr)
          : !isWithin(a.realPath, wr) || filteredOut(w.filter, wr, a.realPath)
      )
        continue;
      a.unknownContents = `${w.origin.split(':')[1] ?? 'another command'} writes ${wr} in the same command line`;
      break;
    }
  }
}
