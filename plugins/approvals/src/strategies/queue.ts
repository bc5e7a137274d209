import { concat, defer, from, Observable, Subject } from 'rxjs';
import type { ApprovalAnswer, ApprovalRequest, ApprovalStrategy } from '../types.js';
import { checkAnswer, invalidOption } from './checkAnswer.js';

export interface QueueOptions {
  /** Name recorded as `by` when an answer does not name its approver (default `queue`). */
  name?: string;
}

/** A programmatic approval queue: a UI, a chat bot or a remote operator answers requests by id. */
export interface QueueStrategy extends ApprovalStrategy {
  /** Every open request: those already waiting when you subscribe, then each new one as it is raised. */
  readonly requests$: Observable<ApprovalRequest>;
  /** Answers request `id`. Returns false when no such request is waiting (answered, withdrawn, timed out). */
  respond(id: string, answer: ApprovalAnswer): boolean;
  /** Requests waiting for an answer right now. */
  pending(): ApprovalRequest[];
}

/**
 * Programmatic approvals: requests are published on `requests$` and answered with `respond(id, answer)`.
 * A request that times out or is answered by another strategy (`firstOf`) is withdrawn.
 *
 * @example
 * ```ts
 * import { approvals, queue } from '@toolgate/approvals';
 * const q = queue();
 * q.requests$.subscribe((req) => q.respond(req.id, { approved: req.tool === 'read_file', by: 'bot' }));
 * const plugin = approvals({ strategy: q });
 * ```
 */
export function queue(options: QueueOptions = {}): QueueStrategy {
  const name = options.name ?? 'queue';
  if (typeof name !== 'string' || name === '')
    throw invalidOption('queue', 'name', name, 'a non-empty string');
  const open = new Map<string, { request: ApprovalRequest; answer: (a: ApprovalAnswer) => void }>();
  const raised = new Subject<ApprovalRequest>();

  const ask = (request: ApprovalRequest): Observable<ApprovalAnswer> =>
    new Observable<ApprovalAnswer>((subscriber) => {
      // Register the answer path before publishing: a subscriber of requests$ may respond synchronously,
      // and an answer that arrived before anyone listened would be lost (TOOLCHAIN.md, rxjs).
      open.set(request.id, {
        request,
        answer: (a) => {
          subscriber.next({ ...a, by: a.by ?? name });
          subscriber.complete();
        },
      });
      raised.next(request);
      return () => {
        open.delete(request.id);
      };
    });

  // A late subscriber (a UI that connects after the agent started) still sees what is already waiting.
  const requests$ = defer(() => concat(from([...open.values()].map((o) => o.request)), raised));

  return {
    name,
    ask,
    requests$,
    respond(id, answer) {
      const checked = checkAnswer(`${name}.respond`, answer);
      const entry = open.get(id);
      if (!entry) return false;
      open.delete(id);
      entry.answer(checked);
      return true;
    },
    pending: () => [...open.values()].map((o) => o.request),
  };
}
