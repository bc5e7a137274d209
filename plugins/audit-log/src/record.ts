import {
  type Access,
  type CallContext,
  type Decision,
  decisionSeverity,
  type Finding,
  type MatchedRule,
  type Severity,
  type SeverityRule,
  type ToolCall,
} from '@toolgate/core';
import type { Redactor } from './redact.js';

export type RecordLevel = 'SECURITY_VIOLATION' | 'DECISION';

/** One path of a call, as the model wrote it and as it resolved. */
export interface RecordPath {
  op: 'read' | 'write';
  scope: 'path' | 'subtree';
  raw: string;
  path: string;
  realPath: string | null;
  origin: string;
}

/** A line of the trail (format `full`). Seed 001's fields come first, under the seed's names. */
export interface AuditRecord {
  level: RecordLevel;
  timestamp: string;
  agentId: string;
  toolId: string;
  /** `read`/`write` of the access that decided, else the tool name (which is what seed 001 writes). */
  operation: string;
  /** The resolved path that decided (the real path when known). */
  attemptedPath?: string;
  reason: string;
  severity: Severity;
  decisionId: string;
  decision: Decision['action'];
  sessionId: string;
  /** The human the agent acts for, when the host knows. */
  userId?: string;
  code?: string;
  plugin?: string;
  rule?: MatchedRule;
  policyHash?: string;
  paths: RecordPath[];
  approval?: { approved: boolean; by: string; reason?: string; grant?: unknown };
  args?: unknown;
  /** Present when the trail is chained. */
  prev?: string;
  hash?: string;
}

export type RecordFormat = 'full' | 'seed';

export interface RecordSettings {
  format: RecordFormat;
  rules: readonly SeverityRule[];
  redact: Redactor;
  policyHash: () => string | undefined;
  maxPaths: number;
}

function recordPath(a: Access): RecordPath {
  return { op: a.op, scope: a.scope, raw: a.raw, path: a.path, realPath: a.realPath, origin: a.origin };
}

/**
 * The record of one decision. `finding` is the deny for a violation, else the first prompt finding (if any).
 * Built from frozen core data only; nothing here touches the disk.
 */
export function buildRecord(
  level: RecordLevel,
  decision: Decision,
  call: ToolCall,
  ctx: CallContext,
  finding: Finding | undefined,
  settings: RecordSettings,
): Record<string, unknown> {
  const access = finding?.access ?? decision.accesses[0];
  const attempted = access ? (access.realPath ?? access.path) : undefined;
  const reason =
    finding?.reason ?? (decision.approval ? (decision.approval.reason ?? 'approved') : 'allowed');
  const severity = decisionSeverity(decision, settings.rules);
  const base = {
    level,
    timestamp: new Date(decision.time).toISOString(),
    agentId: ctx.agentId,
    toolId: decision.tool,
  };
  if (settings.format === 'seed') {
    return {
      ...base,
      operation: decision.tool,
      ...(attempted === undefined ? {} : { attemptedPath: attempted }),
      reason,
      severity,
    };
  }
  const rule = finding?.rule ?? decision.matched[0];
  const policyHash = settings.policyHash();
  const paths = decision.accesses.slice(0, settings.maxPaths).map(recordPath);
  const approval = decision.approval
    ? {
        approved: decision.approval.approved,
        by: decision.approval.by,
        ...(decision.approval.reason ? { reason: decision.approval.reason } : {}),
        ...(decision.approval.grant === undefined ? {} : { grant: settings.redact(decision.approval.grant) }),
      }
    : undefined;
  return {
    ...base,
    operation: access?.op ?? decision.tool,
    ...(attempted === undefined ? {} : { attemptedPath: attempted }),
    reason,
    severity,
    decisionId: decision.id,
    decision: decision.action,
    sessionId: ctx.sessionId,
    ...(ctx.userId ? { userId: ctx.userId } : {}),
    ...(finding ? { code: finding.code } : {}),
    ...(finding?.plugin ? { plugin: finding.plugin } : {}),
    ...(rule ? { rule } : {}),
    ...(policyHash ? { policyHash } : {}),
    paths,
    ...(decision.accesses.length > settings.maxPaths
      ? { pathsOmitted: decision.accesses.length - settings.maxPaths }
      : {}),
    ...(approval ? { approval } : {}),
    args: settings.redact(call?.args),
  };
}
