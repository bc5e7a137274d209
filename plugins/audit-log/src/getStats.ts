import { resolve } from 'node:path';
import type { Severity } from '@toolgate/core';
import { defaultTrailFile, expandHome } from './options.js';
import { readRecords } from './readRecords.js';
import { compileFilter, decisionOf, type RecordFilter } from './recordFilter.js';

export interface AuditStats {
  total: number;
  bySeverity: Record<Severity, number>;
  byAgent: Record<string, number>;
  byTool: Record<string, number>;
  byDecision: Record<string, number>;
  /** Lines that were not JSON records (a torn line from another writer, a foreign file). */
  invalid: number;
}

function bump(map: Record<string, number>, key: unknown): void {
  const k = typeof key === 'string' ? key : 'unknown';
  map[k] = (map[k] ?? 0) + 1;
}

/**
 * Counts records over a range in one streaming pass. Counts every record (violations and decisions) unless
 * `level` says otherwise.
 *
 * @example
 * ```ts
 * const stats = await getStats({ file, start: new Date('2026-02-01'), end: new Date('2026-02-28') });
 * stats.bySeverity.critical; // 5
 * ```
 */
export async function getStats(options: RecordFilter = {}): Promise<AuditStats> {
  const match = compileFilter(options, 'all');
  const stats: AuditStats = {
    total: 0,
    bySeverity: { critical: 0, high: 0, medium: 0, low: 0 },
    byAgent: Object.create(null) as Record<string, number>,
    byTool: Object.create(null) as Record<string, number>,
    byDecision: Object.create(null) as Record<string, number>,
    invalid: 0,
  };
  const counts = { invalid: 0 };
  for await (const record of readRecords(resolve(expandHome(options.file ?? defaultTrailFile())), counts)) {
    if (!match(record)) continue;
    stats.total++;
    bump(stats.bySeverity, record.severity);
    bump(stats.byAgent, record.agentId);
    bump(stats.byTool, record.toolId);
    bump(stats.byDecision, decisionOf(record));
  }
  stats.invalid = counts.invalid;
  return stats;
}
