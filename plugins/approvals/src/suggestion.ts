import { dirname } from 'node:path';
import type { SessionState } from './sessionState.js';
import type { ApprovalItem } from './types.js';

export interface Suggestion {
  sessionId: string;
  op: 'read' | 'write';
  directory: string;
  approvals: number;
  rule: { pattern: string; access: 'read' | 'write' };
  message: string;
}

/**
 * Fatigue control: counts human approvals per directory and operation; when one reaches `after`, returns
 * the policy rule that would make that directory silent. Suggested once per directory and session.
 */
export function countApprovals(s: SessionState, items: readonly ApprovalItem[], after: number): Suggestion[] {
  const out: Suggestion[] = [];
  const seen = new Set<string>();
  for (const item of items) {
    if (item.realPath === null) continue;
    // A listing approved is a read of the directory in the policy model.
    const op = item.op === 'list' ? 'read' : item.op;
    const directory = item.scope === 'subtree' ? item.realPath : dirname(item.realPath);
    const key = `${op}\u0000${directory}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const n = (s.approvedDirs.get(key) ?? 0) + 1;
    s.approvedDirs.set(key, n);
    if (n !== after) continue;
    const pattern = `${directory === '/' ? '' : directory}/**`;
    out.push({
      sessionId: s.sessionId,
      op,
      directory,
      approvals: n,
      rule: { pattern, access: op },
      message: `toolgate: ${op} in ${directory} was approved ${n} times this session. To stop being asked, add a policy rule: {"pattern": ${JSON.stringify(pattern)}, "access": "${op}"}`,
    });
  }
  return out;
}
