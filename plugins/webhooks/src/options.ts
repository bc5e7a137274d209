import type { Severity } from '@toolgate/core';
import type { NotificationKind, UserOf } from './event.js';
import type { WebhookFormat, WebhookTemplate } from './formats.js';

/** One HTTP receiver. */
export interface WebhookTarget {
  url: string;
  /** Payload shape; default: `slack` for hooks.slack.com, `discord` for discord.com webhooks, else `json`. */
  format?: WebhookFormat;
  /** Only events at or above this severity are sent here (default: the plugin's `minSeverity`). */
  minSeverity?: Severity;
  /** Extra request headers (an `Authorization` token, say). */
  headers?: Readonly<Record<string, string>>;
  /** HMAC secret: requests carry `X-Toolgate-Signature` and `X-Toolgate-Timestamp`. */
  secret?: string;
  /** Required with `format: 'custom'`: renders the body (a string is sent as text, anything else as JSON). */
  template?: WebhookTemplate;
  /** Stable name of the target in the outbox (default: derived from format and URL). */
  name?: string;
  /** Which events this target hears (default both). */
  events?: readonly NotificationKind[];
}

/** Seed 001's `emailConfig`, sent over SMTP with nodemailer. */
export interface EmailConfig {
  to: string | readonly string[];
  from: string;
  smtpHost: string;
  smtpPort?: number;
  smtpUser?: string;
  smtpPass?: string;
  /** Implicit TLS (port 465). Default: true when the port is 465. */
  secure?: boolean;
  /** Refuse to send unless the server upgrades with STARTTLS. */
  requireTLS?: boolean;
  minSeverity?: Severity;
  events?: readonly NotificationKind[];
}

export interface RetryOptions {
  /** Attempts before an event goes to the dead-letter file (default 8). */
  maxAttempts: number;
  /** First backoff (default 500 ms); doubles per attempt, with jitter. */
  baseDelayMs: number;
  /** Cap on one backoff (default 60 s). */
  maxDelayMs: number;
  /** Cap on a receiver's `Retry-After` (default 10 min). */
  maxRetryAfterMs: number;
  /** Per-request bound, connect to last byte (default 10 s). */
  timeoutMs: number;
}

export interface WebhooksOptions {
  targets?: readonly WebhookTarget[];
  /** Seed 001's e-mail notifications. */
  emailConfig?: EmailConfig;
  /** Default threshold for every target (default `high`, seed 001: "only high/critical trigger notifications"). */
  minSeverity?: Severity;
  /** Also notify when a call waits for a human's approval (default false). */
  notifyPrompts?: boolean;
  /**
   * Where the durable outbox lives (default `$TOOLGATE_WEBHOOKS_OUTBOX`, else `~/.local/state/toolgate/webhooks`).
   * Shared safely by several processes: each writes its own file and adopts the files of senders that are gone.
   */
  outboxDir?: string;
  /** Most events waiting at once, over all targets (default 10 000); beyond it new events are dead-lettered. */
  maxPending?: number;
  /** Size at which the dead-letter file is rotated to `dead-letter.jsonl.1` (default 10 MiB). */
  maxDeadLetterBytes?: number;
  retry?: Partial<RetryOptions>;
  /** Read `TOOLGATE_VIOLATION_WEBHOOKS` and friends from here (default `process.env`; `{}` turns it off). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Who the human behind a call is (default `ctx.env.USER`). */
  userOf?: UserOf;
}

export const DEFAULT_RETRY: RetryOptions = {
  maxAttempts: 8,
  baseDelayMs: 500,
  maxDelayMs: 60_000,
  maxRetryAfterMs: 600_000,
  timeoutMs: 10_000,
};
