import { of } from 'rxjs';
import type { ApprovalStrategy, GrantScope } from '../types.js';
import { checkGrantScope } from './checkAnswer.js';

export interface AutoAllowOptions {
  /** What each approval grants (default `once`: every prompt is answered anew). */
  grant?: GrantScope;
}

/**
 * Approves every request without asking (seed 002's AutoAllow). For tests and trusted automation: denies
 * elsewhere in the call still win, because a denied call never reaches the approval step.
 *
 * @example
 * ```ts
 * import { approvals, autoAllow } from '@toolgate/approvals';
 * const plugin = approvals({ strategy: autoAllow() });
 * ```
 */
export function autoAllow(options: AutoAllowOptions = {}): ApprovalStrategy {
  const grant = checkGrantScope('autoAllow', options.grant ?? 'once');
  return { name: 'auto-allow', ask: () => of({ approved: true, grant, by: 'auto-allow' }) };
}
