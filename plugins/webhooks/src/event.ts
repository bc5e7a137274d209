import type { Access, CallContext, Finding, PromptRequest, Severity, Violation } from '@toolgate/core';
import { decisionSeverity } from '@toolgate/core';

/** What happened: a denied call, or a call waiting for a human's approval. */
export type NotificationKind = 'security.violation' | 'approval.requested';

/**
 * One notification, independent of any format. Field for field seed 001's webhook payload (`event`,
 * `severity`, `agent`, `user`, `tool`, `operation`, `path`, `reason`, `timestamp`) plus `decisionId` and the
 * verdict `code`. This is what the outbox stores; formats render it at send time.
 */
export interface NotificationEvent {
  event: NotificationKind;
  severity: Severity;
  agent: string;
  user: string | null;
  tool: string;
  operation: string;
  path: string | null;
  reason: string;
  timestamp: string;
  decisionId: string;
  code: string;
}

/** Who the human behind a call is; the CallContext has no user field, so the host says how to find it. */
export type UserOf = (ctx: CallContext) => string | null;

export const defaultUserOf: UserOf = (ctx) => ctx.env.USER ?? ctx.env.LOGNAME ?? null;

// Model-controlled text (paths, reasons) ends up in chat messages and e-mails: cap it so one event cannot
// blow the outbox's disk bound or a receiver's size limit.
const MAX_FIELD = 2_000;
function cap(text: string): string {
  return text.length > MAX_FIELD ? `${text.slice(0, MAX_FIELD - 1)}…` : text;
}

function pathOf(access: Access | undefined): string | null {
  if (!access) return null;
  return cap(access.realPath ?? access.path ?? access.raw);
}

function base(
  kind: NotificationKind,
  severity: Severity,
  ctx: CallContext,
  agent: string,
  tool: string,
  finding: Finding | undefined,
  access: Access | undefined,
  id: string,
  time: number,
  userOf: UserOf,
): NotificationEvent {
  let user: string | null;
  try {
    user = userOf(ctx);
  } catch {
    user = null;
  }
  return {
    event: kind,
    severity,
    agent,
    user: typeof user === 'string' ? cap(user) : null,
    tool: cap(tool),
    // Seed 001 names the operation after the tool; ours says what the access did (read/write) when known.
    operation: access?.op ?? cap(tool),
    path: pathOf(access),
    reason: cap(finding?.reason ?? 'denied'),
    timestamp: new Date(time).toISOString(),
    decisionId: id,
    code: finding?.code ?? 'UNKNOWN',
  };
}

/** The notification for a denied call. Severity is core's `decisionSeverity`, never a second classifier. */
export function violationEvent(violation: Violation, userOf: UserOf = defaultUserOf): NotificationEvent {
  const { decision, ctx, finding } = violation;
  const access = finding.access ?? decision.accesses[0];
  return base(
    'security.violation',
    decisionSeverity(decision),
    ctx,
    // From the frozen decision: events are built a moment after the decision, and ctx belongs to the host.
    decision.agentId,
    decision.tool,
    finding,
    access,
    decision.id,
    decision.time,
    userOf,
  );
}

/** The notification for a pending approval, so a human hears about it while it can still be answered. */
export function promptEvent(
  request: PromptRequest,
  userOf: UserOf = defaultUserOf,
  now = Date.now(),
): NotificationEvent {
  const first = request.findings[0];
  const severity = decisionSeverity({ reasons: request.findings, accesses: request.accesses });
  const tool = typeof request.call?.tool === 'string' ? request.call.tool : '';
  return base(
    'approval.requested',
    severity,
    request.ctx,
    request.ctx.agentId,
    tool,
    first,
    first?.access ?? request.accesses[0],
    request.id,
    now,
    userOf,
  );
}

/** A fixed, realistic event for `toolgate webhooks test` and for receivers' own tests. */
export function sampleEvent(now = Date.now()): NotificationEvent {
  return {
    event: 'security.violation',
    severity: 'critical',
    agent: 'agent-research-bot',
    user: 'user-123',
    tool: 'file_write',
    operation: 'write',
    path: '/etc/passwd',
    reason: 'Path /etc not in allowed folders',
    timestamp: new Date(now).toISOString(),
    decisionId: '00000000-0000-4000-8000-000000000000',
    code: 'PATH_DENIED',
  };
}
