import { describeValue, type Severity, ToolgateError } from '@toolgate/core';
import { Minimatch } from 'minimatch';

/** Filters shared by `queryViolations`, `getStats` and the CLI (seed 001's names, plus toolgate's fields). */
export interface RecordFilter {
  /** The trail file (rotated files beside it are read too). */
  file?: string;
  agentId?: string;
  sessionId?: string;
  userId?: string;
  severity?: Severity | readonly Severity[];
  tool?: string;
  decision?: 'allow' | 'deny' | 'prompt';
  code?: string;
  /** `SECURITY_VIOLATION`, `DECISION` or `all`. */
  level?: 'SECURITY_VIOLATION' | 'DECISION' | 'all';
  /** Inclusive bounds; `start`/`end` are accepted as aliases (seed 001's `getStats`). */
  startTime?: Date | string | number;
  endTime?: Date | string | number;
  start?: Date | string | number;
  end?: Date | string | number;
  /** Glob over the attempted path and every raw, lexical or real path of the record (`**` covers dotfiles). */
  path?: string;
}

function time(field: string, value: Date | string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const t = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(t))
    throw new ToolgateError(
      'TOOLGATE_ERR_INVALID_OPTIONS',
      `audit query: ${field} is not a valid time, got ${describeValue(value)}`,
      { field },
    );
  return t;
}

function recordPaths(r: Record<string, unknown>): string[] {
  const out: string[] = [];
  if (typeof r.attemptedPath === 'string') out.push(r.attemptedPath);
  if (Array.isArray(r.paths)) {
    for (const p of r.paths as Array<Record<string, unknown>>) {
      for (const k of ['raw', 'path', 'realPath']) if (typeof p?.[k] === 'string') out.push(p[k] as string);
    }
  }
  return out;
}

/** Compiles a filter once (the glob included); the predicate runs per record while streaming. */
export function compileFilter(
  filter: RecordFilter,
  defaultLevel: 'SECURITY_VIOLATION' | 'all',
): (r: Record<string, unknown>) => boolean {
  const from = time('startTime', filter.startTime ?? filter.start);
  const to = time('endTime', filter.endTime ?? filter.end);
  const severities =
    filter.severity === undefined
      ? undefined
      : new Set<string>(([] as string[]).concat(filter.severity as string));
  const level = filter.level ?? (filter.decision && filter.decision !== 'deny' ? 'all' : defaultLevel);
  const glob = filter.path === undefined ? undefined : new Minimatch(filter.path, { dot: true });
  return (r) => {
    if (level !== 'all' && r.level !== level) return false;
    if (filter.agentId !== undefined && r.agentId !== filter.agentId) return false;
    if (filter.sessionId !== undefined && r.sessionId !== filter.sessionId) return false;
    if (filter.userId !== undefined && r.userId !== filter.userId) return false;
    if (filter.tool !== undefined && r.toolId !== filter.tool) return false;
    if (filter.code !== undefined && r.code !== filter.code) return false;
    if (filter.decision !== undefined && decisionOf(r) !== filter.decision) return false;
    if (severities && !severities.has(r.severity as string)) return false;
    if (from !== undefined || to !== undefined) {
      const t = typeof r.timestamp === 'string' ? Date.parse(r.timestamp) : Number.NaN;
      if (!Number.isFinite(t)) return false;
      if (from !== undefined && t < from) return false;
      if (to !== undefined && t > to) return false;
    }
    if (glob && !recordPaths(r).some((p) => glob.match(p))) return false;
    return true;
  };
}

/** Seed-format records carry no `decision`: a SECURITY_VIOLATION is a deny. */
export function decisionOf(r: Record<string, unknown>): string {
  if (typeof r.decision === 'string') return r.decision;
  return r.level === 'SECURITY_VIOLATION' ? 'deny' : 'unknown';
}
