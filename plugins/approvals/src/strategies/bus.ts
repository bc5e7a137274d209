import type { ApprovalAnswerMessage, ApprovalBus, ApprovalMessage } from '@toolgate/core';
import { Observable } from 'rxjs';
import { deskItemOf } from '../deskItem.js';
import type { ApprovalAnswer, ApprovalRequest, ApprovalStrategy } from '../types.js';
import { checkAnswer, invalidOption } from './checkAnswer.js';

export interface BusStrategyOptions {
  /** The strategy's name (default `bus`), recorded as `by` when an answer names nobody. */
  name?: string;
  /** Shown to approvers as where the question comes from (default: empty). */
  origin?: string;
  /**
   * Deadline used when the plugin did not set one (a strategy asked outside `approvals()`), in ms from when
   * the question is raised (default 120 000, the plugin's default timeout).
   */
  fallbackTimeoutMs?: number;
}

function summaryOf(request: ApprovalRequest): string {
  const items = request.items.map((i) => `${i.op} ${i.realPath ?? i.raw}`);
  return items.length > 0 ? `${request.tool}: ${items.join(', ')}` : request.tool;
}

/** An answer from the bus, as the plugin takes it: checked like any answer from outside this process. */
function answerOf(where: string, m: ApprovalAnswerMessage): ApprovalAnswer {
  const { id: _id, ...rest } = m;
  return checkAnswer(where, rest);
}

/**
 * Approvals answered through an `ApprovalBus` (questions to whoever approves for the fleet, the answer
 * back to this process): `redisApprovalBus()` of `@toolgate/store-redis`, or your own. `ask` listens for
 * the answer, then publishes the question with its deadline and the approver's view of it (a `DeskItem` in
 * `detail`); unsubscribing (the plugin's timeout, `firstOf` answered elsewhere) withdraws it.
 *
 * Fail closed: a question that cannot be published, a bus that reports it cannot deliver, or an answer that
 * is malformed is an error — the plugin denies, naming why; no answer by the deadline is `PROMPT_TIMEOUT`.
 *
 * @example
 * ```ts
 * import { approvals, busStrategy } from '@toolgate/approvals';
 * import { redisApprovalBus } from '@toolgate/store-redis';
 * const plugin = approvals({ strategy: busStrategy(redisApprovalBus({ url: 'redis://127.0.0.1:6379' })) });
 * ```
 */
export function busStrategy(bus: ApprovalBus, options: BusStrategyOptions = {}): ApprovalStrategy {
  if (
    bus === null ||
    typeof bus !== 'object' ||
    typeof bus.publish !== 'function' ||
    typeof bus.answers !== 'function'
  )
    throw invalidOption('busStrategy', 'bus', bus, 'an ApprovalBus (publish(), answers())');
  const name = options.name ?? 'bus';
  if (typeof name !== 'string' || name === '')
    throw invalidOption('busStrategy', 'name', name, 'a non-empty string');
  const origin = options.origin ?? '';
  if (typeof origin !== 'string') throw invalidOption('busStrategy', 'origin', origin, 'a string');
  const fallback = options.fallbackTimeoutMs ?? 120_000;
  if (typeof fallback !== 'number' || !Number.isFinite(fallback) || fallback <= 0)
    throw invalidOption('busStrategy', 'fallbackTimeoutMs', fallback, 'a positive number of milliseconds');

  return {
    name,
    ask: (request) =>
      new Observable<ApprovalAnswer>((subscriber) => {
        const now = Date.now();
        const deadline = request.deadline ?? now + fallback;
        let done = false;
        const fail = (error: unknown) => {
          if (done) return;
          done = true;
          // Settle it for approvers too: a publish that timed out may still reach the store later, and an
          // approver must not answer a question nobody waits for.
          bus.withdraw?.(request.id, Date.now() >= deadline - 5 ? 'timeout' : 'withdrawn').catch(() => {});
          subscriber.error(error instanceof Error ? error : new Error(String(error)));
        };
        // Listen first: an approver may answer the moment the question is out.
        const stop = bus.answers(
          request.id,
          (message) => {
            if (done) return;
            let answer: ApprovalAnswer;
            try {
              answer = answerOf(`${name} answer`, message);
            } catch (error) {
              fail(error);
              return;
            }
            done = true;
            subscriber.next({ ...answer, by: answer.by ?? name });
            subscriber.complete();
          },
          fail,
        );
        const message: ApprovalMessage = {
          id: request.id,
          sessionId: request.sessionId,
          agentId: request.agentId,
          tool: request.tool,
          summary: summaryOf(request),
          deadline,
          detail: deskItemOf(request, deadline, now, origin) as unknown as Record<string, unknown>,
        };
        bus.publish(message).catch(fail);
        return () => {
          stop();
          if (done) return;
          done = true;
          // Settle it for every approver, so a late answer loses; best effort (the deadline does the rest).
          bus.withdraw?.(request.id, Date.now() >= deadline - 5 ? 'timeout' : 'withdrawn').catch(() => {});
        };
      }),
  };
}
