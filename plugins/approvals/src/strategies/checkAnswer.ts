import { describeValue, ToolgateError } from '@toolgate/core';
import type { ApprovalAnswer, GrantScope } from '../types.js';

const SCOPES = new Set<GrantScope>(['once', 'directory', 'subtree']);

/** The error every factory and public function of this package throws for bad input. */
export function invalidOption(where: string, field: string, value: unknown, expected: string): ToolgateError {
  return new ToolgateError(
    'TOOLGATE_ERR_INVALID_OPTIONS',
    `${where}: ${field} must be ${expected}, got ${describeValue(value)}`,
    { field },
  );
}

export function checkGrantScope(where: string, value: unknown, field = 'grant'): GrantScope {
  if (!SCOPES.has(value as GrantScope))
    throw invalidOption(where, field, value, '"once", "directory" or "subtree"');
  return value as GrantScope;
}

function positive(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

/**
 * Validates an answer coming from outside (a UI, a chat bot, a remote operator). A malformed answer is an
 * error for the caller, never a silent approval.
 */
export function checkAnswer(where: string, value: unknown): ApprovalAnswer {
  const fail = (field: string, v: unknown, expected: string) =>
    invalidOption(where, `answer.${field}`, v, expected);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw invalidOption(where, 'answer', value, 'an object');
  const a = value as Record<string, unknown>;
  if (typeof a.approved !== 'boolean') throw fail('approved', a.approved, 'a boolean');
  if (a.grant !== undefined) checkGrantScope(where, a.grant, 'answer.grant');
  if (a.persist !== undefined && typeof a.persist !== 'boolean')
    throw fail('persist', a.persist, 'a boolean');
  if (a.cancelSession !== undefined && typeof a.cancelSession !== 'boolean')
    throw fail('cancelSession', a.cancelSession, 'a boolean');
  if (a.ttlMs !== undefined && !positive(a.ttlMs)) throw fail('ttlMs', a.ttlMs, 'a positive number');
  if (a.maxUses !== undefined && !(Number.isInteger(a.maxUses) && (a.maxUses as number) > 0))
    throw fail('maxUses', a.maxUses, 'a positive integer');
  if (a.reason !== undefined && typeof a.reason !== 'string') throw fail('reason', a.reason, 'a string');
  if (a.by !== undefined && (typeof a.by !== 'string' || a.by === ''))
    throw fail('by', a.by, 'a non-empty string');
  // Copy only the known fields: nothing else a caller attached reaches the decision.
  const out: ApprovalAnswer = { approved: a.approved };
  for (const k of ['grant', 'persist', 'ttlMs', 'maxUses', 'cancelSession', 'reason', 'by'] as const) {
    if (a[k] !== undefined) (out as unknown as Record<string, unknown>)[k] = a[k];
  }
  return out;
}
