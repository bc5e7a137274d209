import type { ErrorCode } from './codes.js';
import type { Decision, RejectionEnvelope } from './types.js';

/** Thrown for programming and configuration mistakes. `code` is a `TOOLGATE_ERR_*` from codes.ts. */
export class ToolgateError extends Error {
  readonly code: ErrorCode;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(
    code: ErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'ToolgateError';
    this.code = code;
    this.details = details;
  }
}

/**
 * Whether `value` is a ToolgateError — of this copy of core or of another one (a bundle beside the installed
 * package, two versions in one tree), where `instanceof` says no: an Error whose `code` is a `TOOLGATE_ERR_*`.
 */
export function isToolgateError(value: unknown): value is ToolgateError {
  if (value instanceof ToolgateError) return true;
  if (!(value instanceof Error)) return false;
  const code = (value as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('TOOLGATE_ERR_');
}

/** Thrown by `guard.wrap(…, {onDeny: 'throw'})`: the host can return `envelope` to the model. */
export class ToolCallRejectedError extends ToolgateError {
  readonly envelope: RejectionEnvelope;
  readonly decision: Decision;

  constructor(decision: Decision, envelope: RejectionEnvelope) {
    super('TOOLGATE_ERR_REJECTED', envelope.error, { decisionId: decision.id });
    this.name = 'ToolCallRejectedError';
    this.envelope = envelope;
    this.decision = decision;
  }
}

/** Formats a value for an error message: short, one line, and safe for any input. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string')
    return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
  if (value === null || typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return `array(${value.length})`;
  return 'object';
}
