import type { ApprovalDesk } from '@toolgate/approvals';
import { describeValue, type ToolCall, ToolgateError } from '@toolgate/core';
import type { DecisionStream } from './decisionStream.js';

/** Where the audit trail is (the chained JSONL file the audit-log plugin writes; rotated files beside it). */
export interface AuditSource {
  file: string;
}

/** What `explain` shows for one call (the CLI builds it from the policy the gateway runs). */
export interface ExplainView {
  decision: string;
  /** `toolgate explain`'s text output. */
  text: string;
}

/** What the console asks to explain: a whole call, or a path with the operation on it. */
export type ExplainInput = { call: ToolCall } | { path: string; op: 'read' | 'write' };

export interface ConsoleOptions {
  /** Pending approvals: the in-process `desk()` of the guard beside it, or a fleet desk. */
  desk?: ApprovalDesk;
  /** The audit trail to browse, filter and verify. */
  audit?: AuditSource;
  /** The live decision stream of the guard beside it (`decisionStream()` in its plugins). */
  decisions?: DecisionStream;
  /** `toolgate explain` for a call or path typed in. */
  explain?: (input: ExplainInput) => Promise<ExplainView>;
  /**
   * Address to listen on (default `127.0.0.1`). Anything but a loopback address needs `allowRemote: true`
   * (the CLI's explicit `--host`) and is warned about through `onWarning`.
   */
  host?: string;
  allowRemote?: boolean;
  /** Default 0: any free port. */
  port?: number;
  /** The bearer token of the JSON/SSE API (at least 16 characters); default: generated. */
  token?: string;
  /** How long a login code is valid (default 300 000 ms). */
  loginCodeTtlMs?: number;
  /** How long a browser session lasts (default 12 h). */
  sessionTtlMs?: number;
  /** Recorded as `by` of answers given in the browser (default `console`). */
  operator?: string;
  onWarning?: (message: string) => void;
  now?: () => number;
}

export interface CompiledConsoleOptions {
  desk: ApprovalDesk | undefined;
  audit: AuditSource | undefined;
  decisions: DecisionStream | undefined;
  explain: ConsoleOptions['explain'];
  host: string;
  port: number;
  token: string | undefined;
  loginCodeTtlMs: number;
  sessionTtlMs: number;
  operator: string;
  onWarning: (message: string) => void;
  now: () => number;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function bad(field: string, value: unknown, expected: string): ToolgateError {
  return new ToolgateError(
    'TOOLGATE_ERR_INVALID_OPTIONS',
    `startConsole: ${field} must be ${expected}, got ${describeValue(field === 'token' ? '<redacted>' : value)}`,
    { field },
  );
}

const positive = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0;

/** Validates options once; a mistake throws naming the field and value. */
export function compileConsoleOptions(o: ConsoleOptions): CompiledConsoleOptions {
  if (o === null || typeof o !== 'object') throw bad('options', o, 'an object');
  const d = o.desk;
  if (
    d !== undefined &&
    (d === null || typeof d.pending !== 'function' || typeof d.respond !== 'function' || !d.events$)
  )
    throw bad('desk', d, 'an ApprovalDesk (pending, events$, respond)');
  if (o.audit !== undefined && (typeof o.audit?.file !== 'string' || o.audit.file === ''))
    throw bad('audit.file', o.audit?.file, 'a file path');
  if (o.decisions !== undefined && typeof o.decisions?.subscribe !== 'function')
    throw bad('decisions', o.decisions, 'a decisionStream()');
  if (o.explain !== undefined && typeof o.explain !== 'function')
    throw bad('explain', o.explain, 'a function');
  const host = o.host ?? '127.0.0.1';
  if (typeof host !== 'string' || host === '') throw bad('host', host, 'an address');
  const onWarning = o.onWarning ?? ((m: string) => process.emitWarning(m));
  if (typeof onWarning !== 'function') throw bad('onWarning', onWarning, 'a function');
  if (!isLoopback(host)) {
    if (o.allowRemote !== true)
      throw bad(
        'host',
        host,
        'a loopback address (127.0.0.1, ::1), or set allowRemote (the CLI: an explicit --host)',
      );
    onWarning(
      `the console listens on ${host}, not loopback: anyone who can reach it and holds a login link or the token can answer approvals; there is no TLS — put it behind a TLS proxy`,
    );
  }
  const port = o.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw bad('port', port, 'a port number (0–65535)');
  if (o.token !== undefined && (typeof o.token !== 'string' || o.token.length < 16 || /\s/.test(o.token)))
    throw bad('token', o.token, 'a string of at least 16 characters without spaces');
  const loginCodeTtlMs = o.loginCodeTtlMs ?? 300_000;
  if (!positive(loginCodeTtlMs)) throw bad('loginCodeTtlMs', loginCodeTtlMs, 'a positive number of ms');
  const sessionTtlMs = o.sessionTtlMs ?? 12 * 3600_000;
  if (!positive(sessionTtlMs)) throw bad('sessionTtlMs', sessionTtlMs, 'a positive number of ms');
  const operator = o.operator ?? 'console';
  if (typeof operator !== 'string' || operator === '' || operator.length > 200)
    throw bad('operator', operator, 'a non-empty string');
  const now = o.now ?? Date.now;
  if (typeof now !== 'function') throw bad('now', now, 'a function');
  return {
    desk: d,
    audit: o.audit,
    decisions: o.decisions,
    explain: o.explain,
    host,
    port,
    token: o.token,
    loginCodeTtlMs,
    sessionTtlMs,
    operator,
    onWarning,
    now,
  };
}
