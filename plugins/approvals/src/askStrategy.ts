import { catchError, defaultIfEmpty, firstValueFrom, map, of, take, timeout } from 'rxjs';
import { checkAnswer } from './strategies/checkAnswer.js';
import type { ApprovalAnswer, ApprovalRequest, ApprovalStrategy } from './types.js';

/** A strategy's answer, or the denial that stands in for it. */
export type Outcome = ApprovalAnswer & { code?: string };

/**
 * Asks a strategy once, failing closed: no answer within `timeoutMs` ⇒ denied with PROMPT_TIMEOUT (the
 * question is withdrawn by unsubscribing); a strategy that errors, throws or answers nonsense ⇒ denied;
 * one that completes without answering ⇒ denied.
 */
export function askStrategy(
  strategy: ApprovalStrategy,
  request: ApprovalRequest,
  timeoutMs: number,
): Promise<Outcome> {
  let source: ReturnType<ApprovalStrategy['ask']>;
  try {
    source = strategy.ask(request);
  } catch (error) {
    return Promise.resolve(failed(strategy, error));
  }
  if (source === null || typeof source !== 'object' || typeof source.pipe !== 'function')
    return Promise.resolve(failed(strategy, new Error('ask() did not return an Observable')));
  return firstValueFrom(
    source.pipe(
      take(1),
      map((answer): Outcome => ({ ...checkAnswer(strategy.name, answer) })),
      timeout({
        first: timeoutMs,
        with: () =>
          of<Outcome>({
            approved: false,
            code: 'PROMPT_TIMEOUT',
            by: strategy.name,
            reason: `approval timed out: no answer within ${timeoutMs} ms, so the call is denied`,
          }),
      }),
      defaultIfEmpty<Outcome, Outcome>({
        approved: false,
        code: 'PROMPT_UNANSWERED',
        by: strategy.name,
        reason: 'approval required, and the approver gave no answer',
      }),
      catchError((error: unknown) => of(failed(strategy, error))),
    ),
  );
}

function failed(strategy: ApprovalStrategy, error: unknown): Outcome {
  const message = error instanceof Error ? error.message : String(error);
  return {
    approved: false,
    by: strategy.name,
    reason: `approval failed: the approver ${strategy.name} errored (${message}), so the call is denied`,
  };
}
