import type { OutboxEntry } from './outbox.js';

/** What one attempt came to. `retry` says whether another attempt could succeed. */
export type AttemptResult =
  | { ok: true; status?: number; response?: string }
  | { ok: false; retry: boolean; status?: number; retryAfterMs?: number; error: string };

/** Delivers one entry once; never throws (a throw is a failed attempt). */
export type Deliver = (entry: OutboxEntry, attempt: number, signal: AbortSignal) => Promise<AttemptResult>;
