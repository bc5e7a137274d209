import type { AttemptResult, Deliver } from './delivery.js';
import type { RetryOptions } from './options.js';
import type { Outbox, OutboxEntry } from './outbox.js';
import { backoffDelay } from './retryAfter.js';

/** Counters for hosts and tests (also emitted as events on the guard). */
export interface WebhookStats {
  enqueued: number;
  delivered: number;
  /** Failed attempts that will be tried again. */
  retried: number;
  deadLettered: number;
  /** Events refused because the outbox was full (they are dead-lettered, not silently lost). */
  overflowed: number;
  pending: number;
}

export type Emit = (event: string, payload: unknown) => void;

interface TargetQueue {
  key: string;
  deliver: Deliver;
  entries: OutboxEntry[];
  head: number;
  running: boolean;
  notBefore: number;
}

export interface Dispatcher {
  /** O(1): hands an entry already recorded in the outbox to its target's queue; never starts I/O itself. */
  enqueue(entry: OutboxEntry): void;
  stats(): WebhookStats;
  counters: WebhookStats;
  flush(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * One FIFO per target, drained by one pump at a time: order per target is kept, a slow or dead target
 * never holds back another, and the head of a queue is retried (with backoff) before anything behind it.
 */
export function createDispatcher(
  outbox: Outbox,
  deliverers: ReadonlyMap<string, Deliver>,
  retry: RetryOptions,
  emit: Emit,
): Dispatcher {
  const queues = new Map<string, TargetQueue>();
  const counters: WebhookStats = {
    enqueued: 0,
    delivered: 0,
    retried: 0,
    deadLettered: 0,
    overflowed: 0,
    pending: 0,
  };
  const abort = new AbortController();
  const sleepers = new Set<() => void>();
  const idleWaiters = new Set<() => void>();
  const running = new Set<Promise<void>>();
  let closed = false;

  for (const [key, deliver] of deliverers)
    queues.set(key, { key, deliver, entries: [], head: 0, running: false, notBefore: 0 });

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        sleepers.delete(done);
        resolve();
      };
      // unref: a queue waiting to retry must never keep the host process alive.
      const timer = setTimeout(done, ms);
      timer.unref();
      sleepers.add(done);
    });
  }

  function idle(): boolean {
    for (const q of queues.values()) if (q.head < q.entries.length || q.running) return false;
    return true;
  }

  function checkIdle(): void {
    if (!idle()) return;
    for (const wake of [...idleWaiters]) wake();
  }

  function shift(q: TargetQueue): void {
    q.head++;
    q.notBefore = 0;
    // Reclaim the consumed prefix now and then, so dequeue stays O(1) amortised.
    if (q.head > 1024 && q.head * 2 > q.entries.length) {
      q.entries = q.entries.slice(q.head);
      q.head = 0;
    }
  }

  function deadLetter(entry: OutboxEntry, reason: string, detail: string): void {
    counters.deadLettered++;
    outbox.dead({
      id: entry.id,
      target: entry.target,
      reason,
      detail,
      attempts: entry.attempts,
      at: Date.now(),
      event: entry.event,
    });
    emit('webhooks:dead-letter', {
      id: entry.id,
      target: entry.target,
      reason,
      detail,
      attempts: entry.attempts,
    });
  }

  async function pump(q: TargetQueue): Promise<void> {
    while (!closed && q.head < q.entries.length) {
      const entry = q.entries[q.head]!;
      const wait = q.notBefore - Date.now();
      if (wait > 0) {
        await sleep(wait);
        continue;
      }
      entry.attempts++;
      outbox.attempted(entry);
      let result: AttemptResult;
      try {
        result = await q.deliver(entry, entry.attempts, abort.signal);
      } catch (error) {
        result = { ok: false, retry: true, error: String(error) };
      }
      // Aborted by close(): the entry stays in the outbox and the next start delivers it (at-least-once).
      if (closed && !result.ok) break;
      if (result.ok) {
        shift(q);
        outbox.ack(entry.id);
        counters.delivered++;
        emit('webhooks:delivered', {
          id: entry.id,
          target: q.key,
          attempts: entry.attempts,
          status: result.status,
        });
        continue;
      }
      if (!result.retry || entry.attempts >= retry.maxAttempts) {
        shift(q);
        deadLetter(entry, result.retry ? 'max-attempts' : 'rejected', result.error);
        continue;
      }
      // The receiver's own Retry-After wins over our schedule (capped, so a hostile value cannot park us forever).
      const delay =
        result.retryAfterMs !== undefined
          ? Math.min(result.retryAfterMs, retry.maxRetryAfterMs)
          : backoffDelay(entry.attempts, retry.baseDelayMs, retry.maxDelayMs);
      q.notBefore = Date.now() + delay;
      counters.retried++;
      emit('webhooks:retry', {
        id: entry.id,
        target: q.key,
        attempt: entry.attempts,
        delayMs: Math.round(delay),
        status: result.status,
        error: result.error,
      });
    }
  }

  function start(q: TargetQueue): void {
    if (q.running || closed) return;
    q.running = true;
    // setImmediate: the first network call is made after the decision has returned, never inside it.
    const run = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => pump(q))
      .catch((error: unknown) => emit('webhooks:error', { error }))
      .finally(() => {
        q.running = false;
        running.delete(run);
        if (!closed && q.head < q.entries.length) start(q);
        checkIdle();
      });
    running.add(run);
  }

  return {
    counters,
    enqueue(entry) {
      const q = queues.get(entry.target);
      if (!q) {
        deadLetter(entry, 'unknown-target', `no configured target named ${entry.target}`);
        return;
      }
      q.entries.push(entry);
      start(q);
    },
    stats() {
      return { ...counters, pending: outbox.size };
    },
    async flush(timeoutMs) {
      if (!idle()) {
        const drained = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => finish(false), timeoutMs);
          timer.unref();
          function finish(value: boolean) {
            clearTimeout(timer);
            idleWaiters.delete(wake);
            resolve(value);
          }
          function wake() {
            finish(true);
          }
          idleWaiters.add(wake);
        });
        if (!drained) return false;
      }
      await outbox.settle();
      return true;
    },
    async close() {
      if (closed) return;
      closed = true;
      abort.abort(new Error('webhooks plugin closed'));
      for (const wake of [...sleepers]) wake();
      await Promise.allSettled([...running]);
      for (const wake of [...idleWaiters]) wake();
    },
  };
}
