import {
  type Access,
  type CallContext,
  type Decision,
  decisionSeverity,
  type Finding,
  type MatchedRule,
  type NetworkAccess,
  type Severity,
  type SeverityRule,
  type ToolCall,
} from '@toolgate/core';
import type { Redactor } from './redact.js';

export type RecordLevel = 'SECURITY_VIOLATION' | 'DECISION';

/** One path of a call, as the model wrote it and as it resolved. */
export interface RecordPath {
  op: 'read' | 'write' | 'list';
  scope: 'path' | 'subtree';
  raw: string;
  path: string;
  realPath: string | null;
  origin: string;
}

/** One host a call reaches (issue 26), as the extractor found it. */
export interface RecordHost {
  raw: string;
  host: string | null;
  port?: number;
  scheme?: string;
  method: 'read' | 'write';
  origin: string;
  certain: boolean;
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
  /** The host a network finding is about (`NETWORK_DENIED`…); `operation` is then its method. */
  attemptedHost?: string;
  /** Hosts the call reaches (present when an extractor found any), capped like `paths`. */
  hosts?: RecordHost[];
  approval?: { approved: boolean; by: string; reason?: string; grant?: unknown };
  /** The call ran inside the OS sandbox instead of being denied: why (what analysis could not prove). */
  sandboxed?: { mode: 'uncertain' | 'always'; uncertain: string[]; limits?: string };
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

// Many decisions share a millisecond under load; formatting a date costs more than the rest of a field.
let lastTime = Number.NaN;
let lastIso = '';
function isoTime(ms: number): string {
  if (ms !== lastTime) {
    lastTime = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

function recordHost(n: NetworkAccess): RecordHost {
  const h: RecordHost = { raw: n.raw, host: n.host, method: n.method, origin: n.origin, certain: n.certain };
  if (n.port !== undefined) h.port = n.port;
  if (n.scheme !== undefined) h.scheme = n.scheme;
  return h;
}

function recordPath(a: Access): RecordPath {
  return { op: a.op, scope: a.scope, raw: a.raw, path: a.path, realPath: a.realPath, origin: a.origin };
}

/**
 * The record of one decision, `level` first. `finding` is the deny for a violation, else the first prompt
 * finding (if any).
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
  // A network finding is about a host: no path is the one "attempted".
  const access = finding?.access ?? (finding?.network ? undefined : decision.accesses[0]);
  const attempted = access ? (access.realPath ?? access.path) : undefined;
  const reason =
    finding?.reason ?? (decision.approval ? (decision.approval.reason ?? 'approved') : 'allowed');
  const severity = decisionSeverity(decision, settings.rules);
  // `level` first, as pino writes it: the line is one JSON.stringify of this object, nothing prepended.
  const base: Record<string, unknown> = {
    level,
    timestamp: isoTime(decision.time),
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
  // Built by assignment, not by conditional spreads: this runs on the decision path (see the bench).
  const r: Record<string, unknown> = base;
  const net = finding?.network;
  r.operation = net ? net.method : (access?.op ?? decision.tool);
  if (attempted !== undefined) r.attemptedPath = attempted;
  if (net) r.attemptedHost = net.host ?? net.raw;
  r.reason = reason;
  r.severity = severity;
  r.decisionId = decision.id;
  r.decision = decision.action;
  r.sessionId = ctx.sessionId;
  if (ctx.userId) r.userId = ctx.userId;
  if (finding) r.code = finding.code;
  if (finding?.plugin) r.plugin = finding.plugin;
  if (rule) r.rule = rule;
  if (policyHash) r.policyHash = policyHash;
  const paths: RecordPath[] = [];
  const n = Math.min(decision.accesses.length, settings.maxPaths);
  for (let i = 0; i < n; i++) paths.push(recordPath(decision.accesses[i]!));
  r.paths = paths;
  if (decision.accesses.length > n) r.pathsOmitted = decision.accesses.length - n;
  const reached = decision.network;
  if (reached !== undefined && reached.length > 0) {
    const m = Math.min(reached.length, settings.maxPaths);
    const hosts: RecordHost[] = [];
    for (let i = 0; i < m; i++) hosts.push(recordHost(reached[i]!));
    r.hosts = hosts;
    if (reached.length > m) r.hostsOmitted = reached.length - m;
  }
  if (decision.sandboxed)
    r.sandboxed = {
      mode: decision.sandboxed.mode,
      uncertain: decision.sandboxed.uncertain.map((f) => `${f.code}: ${f.reason}`),
      ...(decision.sandboxed.limits ? { limits: decision.sandboxed.limits } : {}),
    };
  const approval = decision.approval;
  if (approval) {
    const a: Record<string, unknown> = { approved: approval.approved, by: approval.by };
    if (approval.reason) a.reason = approval.reason;
    if (approval.grant !== undefined) a.grant = settings.redact(approval.grant);
    r.approval = a;
  }
  const args = settings.redact(call?.args);
  if (args !== undefined) r.args = args;
  return r;
}
