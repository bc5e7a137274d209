import type { Op } from '@toolgate/core';
import type { Outcome, RuleAccess } from './types.js';

/** Restrictiveness of a rule's access: lower is more restrictive (`deny > prompt > read > write`). */
export const LEVEL: Readonly<Record<RuleAccess, number>> = { deny: 0, prompt: 1, read: 2, write: 3 };
const OUTCOME_RANK: Readonly<Record<Outcome, number>> = { deny: 0, prompt: 1, allow: 2 };

/** What a rule of this access means for one operation: a write to a read-tier path is denied. */
export function outcomeOf(access: RuleAccess, op: Op): Outcome {
  if (access === 'deny') return 'deny';
  if (access === 'prompt') return 'prompt';
  if (access === 'read') return op === 'read' ? 'allow' : 'deny';
  return 'allow';
}

/** The more restrictive of two outcomes. */
export function tighter(a: Outcome, b: Outcome): Outcome {
  return OUTCOME_RANK[a] <= OUTCOME_RANK[b] ? a : b;
}
