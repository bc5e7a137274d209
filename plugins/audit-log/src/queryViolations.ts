import { resolve } from 'node:path';
import { describeValue, ToolgateError } from '@toolgate/core';
import { defaultTrailFile, expandHome } from './options.js';
import { readRecords } from './readRecords.js';
import type { AuditRecord } from './record.js';
import { compileFilter, type RecordFilter } from './recordFilter.js';

export interface QueryOptions extends RecordFilter {
  /** At most this many records: the most recent matches, returned oldest first (memory stays at `limit`). */
  limit?: number;
}

/**
 * Streams the trail (rotated files included) and returns the matching records. By default only violations;
 * pass `level: 'all'` or a `decision` other than `deny` for decision records.
 *
 * @example
 * ```ts
 * const critical = await queryViolations({ file, severity: 'critical', startTime: new Date('2026-02-09') });
 * ```
 */
export async function queryViolations(options: QueryOptions = {}): Promise<AuditRecord[]> {
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  if (!(limit === Number.POSITIVE_INFINITY || (Number.isInteger(limit) && limit > 0)))
    throw new ToolgateError(
      'TOOLGATE_ERR_INVALID_OPTIONS',
      `queryViolations: limit must be a positive integer, got ${describeValue(limit)}`,
      { field: 'limit' },
    );
  const match = compileFilter(options, 'SECURITY_VIOLATION');
  const out: Record<string, unknown>[] = [];
  for await (const record of readRecords(resolve(expandHome(options.file ?? defaultTrailFile())))) {
    if (!match(record)) continue;
    out.push(record);
    if (out.length > limit) out.shift();
  }
  return out as unknown as AuditRecord[];
}
