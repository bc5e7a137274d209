import { type Dirent, readdirSync } from 'node:fs';
import { isWithin, monotonicMs } from '@toolgate/core';
import type { Minimatch } from 'minimatch';
import { SandboxCompileError } from './sandboxError.js';

export interface WalkBounds {
  /** Directory entries read in all, over every glob (default 50,000, as folder-rules' subtree walk). */
  maxEntries?: number;
  /** Wall time in ms (default 2,000). */
  maxMs?: number;
}

export interface GlobTarget {
  matcher: Minimatch;
  /** Directories to search: the glob's literal prefix, or the agent's reach for an anywhere-glob (`/**\/.env`). */
  roots: readonly string[];
  /**
   * Directories beneath which every directory may hold a match — the literal prefix of a glob that goes on with
   * `**` (matched with `dot`): the walk enters them without asking the matcher (its partial match costs ~30 µs a
   * directory in a fresh process). Entering more than needed only costs time; the match of each entry decides.
   */
  anyDirBelow?: readonly string[];
}

// Pseudo-filesystems: the sandbox brings its own /proc and /dev, and nothing in /sys is a policy's file.
const SKIP = ['/proc', '/sys', '/dev'];

/**
 * Every existing path beneath the targets' roots that one of the globs matches. A directory is entered only
 * where some glob could still match beneath it (minimatch's partial match); symlinks are not followed (the
 * caller masks what a matching link resolves to). Over the bounds it throws: a mask list that may be
 * incomplete would leave a denied file readable, so the sandbox refuses to start instead.
 */
export function globMatches(
  targets: readonly GlobTarget[],
  bounds: WalkBounds = {},
): {
  matches: string[];
  walked: number;
} {
  const maxEntries = bounds.maxEntries ?? 50_000;
  const maxMs = bounds.maxMs ?? 2_000;
  const started = monotonicMs();
  const matches = new Set<string>();
  let walked = 0;
  const roots = new Set<string>();
  for (const t of targets) for (const r of t.roots) roots.add(r);
  // Walk each distinct root once, skipping roots inside another root.
  const distinct = [...roots].filter((r) => ![...roots].some((o) => o !== r && isWithin(r, o)));
  const stack = distinct.map((r) => r);
  while (stack.length > 0) {
    const dir = stack.pop()!;
    if (SKIP.some((s) => isWithin(dir, s))) continue;
    const live = targets.filter((t) => t.roots.some((r) => isWithin(dir, r) || isWithin(r, dir)));
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') continue;
      throw new SandboxCompileError(`cannot read ${dir} to find what the policy's globs match: ${code}`);
    }
    walked += entries.length;
    if (walked > maxEntries || monotonicMs() - started > maxMs)
      throw new SandboxCompileError(
        `the policy's globs (${targets.map((t) => t.matcher.pattern).join(', ')}) cannot be compiled to masks: searching ${distinct.join(', ')} exceeded ${walked > maxEntries ? `${maxEntries} entries` : `${maxMs} ms`}`,
      );
    for (const e of entries) {
      const path = dir === '/' ? `/${e.name}` : `${dir}/${e.name}`;
      let enter = false;
      for (const t of live) {
        if (!t.roots.some((r) => isWithin(path, r))) {
          if (e.isDirectory() && t.roots.some((r) => isWithin(r, path))) enter = true;
          continue;
        }
        if (t.matcher.match(path)) matches.add(path);
        else if (
          e.isDirectory() &&
          (t.anyDirBelow?.some((r) => isWithin(path, r)) || t.matcher.match(path, true))
        )
          enter = true;
      }
      if (enter && !matches.has(path)) stack.push(path);
    }
  }
  return { matches: [...matches], walked };
}
