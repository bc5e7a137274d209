import { type Decision, describeValue, type GuardPlugin, Stage, ToolgateError } from '@toolgate/core';

/** One decision as the console shows it in the live stream (plain JSON, built off the decision path). */
export interface DecisionSummary {
  id: string;
  time: number;
  action: Decision['action'];
  tool: string;
  agentId: string;
  sessionId: string;
  /** The first reason's code, when there is one (`PATH_DENIED`, `PATH_PROMPT`…). */
  code?: string;
  reason?: string;
  /** The first path of the call (real path when known). */
  path?: string;
  /** Who answered, for decisions that went through an approval. */
  approvedBy?: string;
}

/** What a listener of the stream gets: a batch of summaries, oldest first, and how many were dropped. */
export type DecisionListener = (batch: readonly DecisionSummary[], dropped: number) => void;

export interface DecisionStreamOptions {
  /** How many decisions are kept for a page that connects later (default 100). */
  keep?: number;
  /** How often queued decisions are handed to listeners, in ms (default 250). */
  flushMs?: number;
  /** Most decisions queued between two flushes; beyond it newer ones are dropped and counted (default 5,000). */
  maxQueued?: number;
}

/** A guard plugin that feeds the console's live decision stream. */
export interface DecisionStream extends GuardPlugin {
  /** Decisions seen most recently (at most `keep`), oldest first. */
  recent(): DecisionSummary[];
  /** Listens to batches of decisions; returns the unsubscribe function. */
  subscribe(listener: DecisionListener): () => void;
  /** Stops the flush timer (listeners get nothing more). */
  close(): void;
}

export function summarize(d: Decision): DecisionSummary {
  const first = d.reasons[0];
  const access = first?.access ?? d.accesses[0];
  const s: DecisionSummary = {
    id: d.id,
    time: d.time,
    action: d.action,
    tool: d.tool,
    agentId: d.agentId,
    sessionId: d.sessionId,
  };
  if (first) {
    s.code = first.code;
    s.reason = first.reason;
  }
  if (access) s.path = access.realPath ?? access.path;
  if (d.approval) s.approvedBy = d.approval.by;
  return s;
}

function positiveInt(name: string, value: unknown, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || (v as number) <= 0)
    throw new ToolgateError(
      'TOOLGATE_ERR_INVALID_OPTIONS',
      `decisionStream: ${name} must be a positive integer, got ${describeValue(value)}`,
      { field: name },
    );
  return v as number;
}

/**
 * The console's view of a guard's decisions. Its `onDecision` tap only appends the frozen decision to an
 * array (no serialisation, no I/O, no awaiting anybody): summaries are made and handed to listeners by a
 * timer, in batches, off the decision path. A listener that cannot keep up (a slow browser) is the
 * listener's problem — the SSE writer drops for it — never the guard's.
 *
 * @example
 * ```ts
 * import { createGuard } from '@toolgate/core';
 * import { decisionStream, startConsole } from '@toolgate/console';
 * const stream = decisionStream();
 * const guard = createGuard({ plugins: [myPolicy(), stream] });
 * const web = await startConsole({ decisions: stream, audit: { file: 'audit.jsonl' } });
 * ```
 */
export function decisionStream(options: DecisionStreamOptions = {}): DecisionStream {
  const keep = positiveInt('keep', options.keep, 100);
  const flushMs = positiveInt('flushMs', options.flushMs, 250);
  const maxQueued = positiveInt('maxQueued', options.maxQueued, 5000);
  let queue: Decision[] = [];
  let dropped = 0;
  let ring: DecisionSummary[] = [];
  const listeners = new Set<DecisionListener>();
  let timer: NodeJS.Timeout | undefined;

  const flush = () => {
    if (queue.length === 0 && dropped === 0) return;
    const taken = queue;
    const lost = dropped;
    queue = [];
    dropped = 0;
    const batch = taken.map(summarize);
    ring = ring.concat(batch.slice(-keep)).slice(-keep);
    for (const l of listeners) {
      try {
        l(batch, lost);
      } catch {
        // A broken listener loses its batch; the others and the guard are unaffected.
      }
    }
  };
  const ensureTimer = () => {
    if (timer) return;
    timer = setInterval(flush, flushMs);
    timer.unref();
  };

  return {
    name: 'console-stream',
    apply(hooks) {
      hooks.onDecision.tap({ stage: Stage.NOTIFY }, (decision) => {
        // Full: the newest is dropped and counted (O(1); the page says how many it missed).
        if (queue.length >= maxQueued) dropped++;
        else queue.push(decision);
      });
      ensureTimer();
    },
    recent: () => {
      flush();
      return [...ring];
    },
    subscribe(listener) {
      listeners.add(listener);
      ensureTimer();
      return () => listeners.delete(listener);
    },
    close() {
      if (timer) clearInterval(timer);
      timer = undefined;
      listeners.clear();
    },
  };
}
