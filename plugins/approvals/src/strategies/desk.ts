import { Observable, Subject } from 'rxjs';
import type { ApprovalDesk, DeskAnswer, DeskEvent, DeskItem } from '../desk.js';
import { deskItemOf } from '../deskItem.js';
import type { ApprovalAnswer, ApprovalStrategy } from '../types.js';
import { checkAnswer, invalidOption } from './checkAnswer.js';

export interface DeskOptions {
  /** The desk's name (default `desk`); `by` must be given by every answer. */
  name?: string;
  /**
   * Deadline used when the plugin did not set one on the request (a strategy asked directly, outside
   * `approvals()`), in ms from when it was raised (default 120 000, the plugin's default timeout).
   */
  fallbackTimeoutMs?: number;
  /** Shown as `DeskItem.origin` (default empty: this process). */
  origin?: string;
}

/** An approval strategy that is also an in-process `ApprovalDesk`. */
export type DeskStrategy = ApprovalStrategy & ApprovalDesk;

interface Open {
  item: DeskItem;
  answer: (a: ApprovalAnswer) => void;
}

/**
 * An in-process approval desk: questions wait in `pending()`, are announced on `events$` and are answered by
 * `respond(id, answer)` — the web console (`@toolgate/console`) and scripts read it. Use it as the
 * approvals plugin's strategy (alone, or in `firstOf` beside `tty()`); the plugin's timeout sets each item's
 * deadline.
 *
 * @example
 * ```ts
 * import { approvals, desk } from '@toolgate/approvals';
 * const d = desk();
 * const plugin = approvals({ strategy: d, timeoutMs: 60_000 });
 * d.events$.subscribe((e) => console.log(e.type, e.type === 'raised' ? e.item.tool : e.cause));
 * ```
 */
export function desk(options: DeskOptions = {}): DeskStrategy {
  const name = options.name ?? 'desk';
  if (typeof name !== 'string' || name === '')
    throw invalidOption('desk', 'name', name, 'a non-empty string');
  const fallback = options.fallbackTimeoutMs ?? 120_000;
  if (typeof fallback !== 'number' || !Number.isFinite(fallback) || fallback <= 0)
    throw invalidOption('desk', 'fallbackTimeoutMs', fallback, 'a positive number of milliseconds');
  const origin = options.origin ?? '';
  if (typeof origin !== 'string') throw invalidOption('desk', 'origin', origin, 'a string');

  // Insertion order is raise order: pending() is oldest first.
  const open = new Map<string, Open>();
  const events = new Subject<DeskEvent>();
  const emit = (e: DeskEvent) => {
    // A reader that throws must not break the asking side (observers never change a decision).
    try {
      events.next(e);
    } catch {}
  };

  const ask = (request: Parameters<ApprovalStrategy['ask']>[0]): Observable<ApprovalAnswer> =>
    new Observable<ApprovalAnswer>((subscriber) => {
      const now = Date.now();
      const item = deskItemOf(request, request.deadline ?? now + fallback, now, origin);
      let settled = false;
      // Register before announcing: a reader may answer synchronously from its events$ callback.
      open.set(item.id, {
        item,
        answer: (a) => {
          settled = true;
          open.delete(item.id);
          emit({
            type: 'settled',
            id: item.id,
            cause: 'answered',
            approved: a.approved,
            ...(a.by !== undefined ? { by: a.by } : {}),
            ...(a.reason !== undefined ? { reason: a.reason } : {}),
          });
          subscriber.next(a);
          subscriber.complete();
        },
      });
      emit({ type: 'raised', item });
      // Core settled the prompt without us (its own onPrompt bound, another approver): withdraw at once
      // rather than leave a question on the desk that nobody's answer can change any more.
      const signal = request.prompt?.signal;
      const onAbort = () => subscriber.complete();
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) subscriber.complete();
      return () => {
        signal?.removeEventListener('abort', onAbort);
        if (settled || !open.has(item.id)) return;
        open.delete(item.id);
        // The plugin unsubscribes at its timeout (deadline reached) or when the question is moot.
        const timedOut = Date.now() >= item.deadline - 5;
        emit(
          timedOut
            ? {
                type: 'settled',
                id: item.id,
                cause: 'timeout',
                approved: false,
                reason: 'no answer by the deadline',
              }
            : { type: 'settled', id: item.id, cause: 'withdrawn' },
        );
      };
    });

  return {
    name,
    ask,
    events$: events.asObservable(),
    pending: () => [...open.values()].map((o) => o.item),
    respond(id: string, answer: DeskAnswer): Promise<boolean> {
      try {
        const checked = checkAnswer(`${name}.respond`, answer);
        if (checked.by === undefined)
          throw invalidOption(`${name}.respond`, 'answer.by', undefined, 'a non-empty string');
        const entry = typeof id === 'string' ? open.get(id) : undefined;
        if (!entry || Date.now() > entry.item.deadline) return Promise.resolve(false);
        entry.answer(checked);
        return Promise.resolve(true);
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };
}
