import { stat } from 'node:fs/promises';
import {
  type AuditRecord,
  type AuditStats,
  type ChainReport,
  getStats,
  queryViolations,
  readRecords,
  verifyChain,
} from '@toolgate/audit-log';
import type { AuditSource } from './options.js';

/** The audit page's filters (every one optional; exact match except `path`, a glob). */
export interface AuditFilter {
  agent?: string;
  session?: string;
  tool?: string;
  decision?: 'allow' | 'deny' | 'prompt';
  path?: string;
}

const DECISIONS = new Set(['allow', 'deny', 'prompt']);

/** Filters from a query string; unknown values are dropped, never passed to the reader as-is. */
export function filterOf(q: URLSearchParams): AuditFilter {
  const f: AuditFilter = {};
  const text = (k: string) => {
    const v = q.get(k)?.trim();
    return v && v.length <= 500 ? v : undefined;
  };
  const agent = text('agent');
  const session = text('session');
  const tool = text('tool');
  const path = text('path');
  const decision = text('decision');
  if (agent) f.agent = agent;
  if (session) f.session = session;
  if (tool) f.tool = tool;
  if (path) f.path = path;
  if (decision && DECISIONS.has(decision)) f.decision = decision as AuditFilter['decision'];
  return f;
}

function recordFilter(source: AuditSource, f: AuditFilter) {
  return {
    file: source.file,
    level: 'all' as const,
    ...(f.agent ? { agentId: f.agent } : {}),
    ...(f.session ? { sessionId: f.session } : {}),
    ...(f.tool ? { tool: f.tool } : {}),
    ...(f.decision ? { decision: f.decision } : {}),
    ...(f.path ? { path: f.path } : {}),
  };
}

export interface AuditView {
  records: AuditRecord[];
  stats: AuditStats;
  /** Denials only, for the chart. */
  denials: AuditStats;
}

export async function auditView(source: AuditSource, f: AuditFilter, limit = 200): Promise<AuditView> {
  const filter = recordFilter(source, f);
  const [records, stats, denials] = await Promise.all([
    queryViolations({ ...filter, limit }),
    getStats(filter),
    getStats({ ...filter, decision: 'deny' }),
  ]);
  return { records: records.reverse(), stats, denials };
}

/** One record by decision id (the newest with that id). */
export async function findRecord(
  source: AuditSource,
  id: string,
): Promise<Record<string, unknown> | undefined> {
  let found: Record<string, unknown> | undefined;
  for await (const r of readRecords(source.file)) if (r.decisionId === id) found = r;
  return found;
}

/**
 * `audit verify` of the trail, cached by the trail file's size and mtime: the chain is only re-read when the
 * trail changed.
 */
export function chainVerifier(source: AuditSource): () => Promise<ChainReport | { missing: true }> {
  let key = '';
  let last: ChainReport | undefined;
  return async () => {
    let s: Awaited<ReturnType<typeof stat>>;
    try {
      s = await stat(source.file);
    } catch {
      return { missing: true };
    }
    const k = `${s.size}:${s.mtimeMs}`;
    if (k !== key || !last) {
      last = await verifyChain(source.file);
      key = k;
    }
    return last;
  };
}
