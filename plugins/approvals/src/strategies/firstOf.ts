import { from, mergeMap, type Observable, take } from 'rxjs';
import type { ApprovalAnswer, ApprovalStrategy } from '../types.js';
import { invalidOption } from './checkAnswer.js';

/**
 * Asks several strategies at once (a terminal and a remote queue, say); the first answer wins, denials
 * included, and the others' questions are withdrawn. A strategy that fails makes the request fail (denied).
 *
 * @example
 * ```ts
 * import { approvals, firstOf, queue, tty } from '@toolgate/approvals';
 * const remote = queue();
 * const plugin = approvals({ strategy: firstOf([tty(), remote]) });
 * ```
 */
export function firstOf(strategies: readonly ApprovalStrategy[]): ApprovalStrategy {
  if (!Array.isArray(strategies) || strategies.length === 0)
    throw invalidOption('firstOf', 'strategies', strategies, 'a non-empty array of strategies');
  for (const [i, s] of strategies.entries()) {
    if (s === null || typeof s !== 'object' || typeof s.ask !== 'function' || typeof s.name !== 'string')
      throw invalidOption('firstOf', `strategies[${i}]`, s, 'a strategy (a name and an ask() function)');
  }
  const list = [...strategies];
  return {
    name: `first-of(${list.map((s) => s.name).join(',')})`,
    ask: (request): Observable<ApprovalAnswer> =>
      from(list).pipe(
        mergeMap((s: ApprovalStrategy): Observable<ApprovalAnswer> => s.ask(request)),
        take(1),
      ),
    notify(message) {
      for (const s of list) s.notify?.(message);
    },
  };
}
