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
