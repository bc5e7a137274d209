import { of } from 'rxjs';
import type { ApprovalStrategy } from '../types.js';
import { invalidOption } from './checkAnswer.js';

export interface AutoDenyOptions {
  /** The reason the model is told (default "approval required; this session denies every prompt"). */
  reason?: string;
}

/**
 * Denies every request without asking (seed 002's AutoDeny): the prompt tier behaves like the deny tier.
 *
 * @example
 * ```ts
 * import { approvals, autoDeny } from '@toolgate/approvals';
 * const plugin = approvals({ strategy: autoDeny({ reason: 'no human on duty' }) });
 * ```
 */
export function autoDeny(options: AutoDenyOptions = {}): ApprovalStrategy {
  const reason = options.reason ?? 'approval required; this session denies every prompt';
  if (typeof reason !== 'string' || reason === '')
    throw invalidOption('autoDeny', 'reason', reason, 'a non-empty string');
  return { name: 'auto-deny', ask: () => of({ approved: false, reason, by: 'auto-deny' }) };
}
