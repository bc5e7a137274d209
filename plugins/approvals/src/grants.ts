import { dirname } from 'node:path';
import { isWithin } from '@toolgate/core';
import type { HostNeed } from './approvalRequest.js';
import type { ApprovalAnswer, ApprovalItem, Grant } from './types.js';

export interface GrantDefaults {
  ttlMs?: number;
  maxUses?: number;
}

function live(grant: Grant, now: number): boolean {
  if (grant.expiresAt !== undefined && now >= grant.expiresAt) return false;
  return grant.usesLeft === undefined || grant.usesLeft > 0;
}

/**
 * Whether `grant` answers `item`. The operation must be the same (a read grant never answers a write, and a
 * write grant does not answer a read either: each is approved on its own). Containment is by path
 * component, so a grant on `/ws/secrets` answers nothing in `/ws` or `/ws/secrets-old`.
 */
export function grantCovers(grant: Grant, item: ApprovalItem): boolean {
  const real = item.realPath;
  if (real === null || grant.op !== item.op || grant.scope === 'host') return false;
  switch (grant.scope) {
    case 'path':
      return item.scope === 'path' && real === grant.path;
    case 'directory':
      return item.scope === 'path' && real !== grant.path && dirname(real) === grant.path;
    case 'subtree':
      return isWithin(real, grant.path);
  }
}

/** Whether a host grant answers a host the call reaches: the same host, the same method (a read grant never a write). */
export function hostGrantCovers(grant: Grant, need: HostNeed): boolean {
  return grant.scope === 'host' && grant.path === need.host && grant.op === need.method;
}

/**
 * Finds live grants answering every item, or `undefined` if one item is not answered. Consumes one use of
 * each grant relied on (once per call, however many of its items a grant answers) and drops spent grants.
 */
export function answerFromGrants(
  grants: Grant[],
  items: readonly ApprovalItem[],
  now: number,
  hosts: readonly HostNeed[] = [],
): Grant[] | undefined {
  const used = new Set<Grant>();
  const needs: Array<(g: Grant) => boolean> = [
    ...items.map((item) => (g: Grant) => grantCovers(g, item)),
    ...hosts.map((need) => (g: Grant) => hostGrantCovers(g, need)),
  ];
  for (const covers of needs) {
    let best: Grant | undefined;
    for (const grant of grants) {
      if (!live(grant, now) || !covers(grant)) continue;
      // Prefer a grant already relied on, then an unlimited one, so limited uses are spent last.
      if (used.has(grant)) {
        best = grant;
        break;
      }
      if (best === undefined || (best.usesLeft !== undefined && grant.usesLeft === undefined)) best = grant;
    }
    if (best === undefined) return undefined;
    used.add(best);
  }
  for (const grant of used) if (grant.usesLeft !== undefined) grant.usesLeft -= 1;
  return [...used];
}

/** Removes expired and spent grants in place; returns whether any was removed. */
export function pruneGrants(grants: Grant[], now: number): boolean {
  const before = grants.length;
  const kept = grants.filter((g) => live(g, now));
  grants.splice(0, grants.length, ...kept);
  return kept.length !== before;
}

/**
 * The grants an approval creates. `directory` (seed 002's `Y`) covers the files directly in the path's
 * directory; `subtree` (`a`) the directory and everything beneath. An access that already spans a subtree
 * (`rm -r dir`) is granted exactly that subtree, never its parent: a grant never reaches beyond what the
 * human was shown.
 */
export function grantsFromAnswer(
  answer: ApprovalAnswer,
  items: readonly ApprovalItem[],
  defaults: GrantDefaults,
  now: number,
  by: string,
  hosts: readonly HostNeed[] = [],
): Grant[] {
  const kind = answer.grant ?? 'once';
  if (!answer.approved || kind === 'once') return [];
  const ttl = answer.ttlMs ?? defaults.ttlMs;
  const uses = answer.maxUses ?? defaults.maxUses;
  const out: Grant[] = [];
  const seen = new Set<string>();
  for (const item of items) {
    if (item.realPath === null) continue;
    const grant: Grant =
      item.scope === 'subtree'
        ? { op: item.op, scope: 'subtree', path: item.realPath, createdAt: now, by }
        : {
            op: item.op,
            scope: kind === 'directory' ? 'directory' : 'subtree',
            path: dirname(item.realPath),
            createdAt: now,
            by,
          };
    if (ttl !== undefined) grant.expiresAt = now + ttl;
    if (uses !== undefined) grant.usesLeft = uses;
    const key = `${grant.op}\u0000${grant.scope}\u0000${grant.path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(grant);
  }
  // A host approved for more than once: that host, that method, for the session (whichever wider scope the
  // answer named — a host has no directory or subtree).
  for (const need of hosts) {
    const grant: Grant = { op: need.method, scope: 'host', path: need.host, createdAt: now, by };
    if (ttl !== undefined) grant.expiresAt = now + ttl;
    if (uses !== undefined) grant.usesLeft = uses;
    const key = `${grant.op}\u0000host\u0000${grant.path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(grant);
  }
  return out;
}
