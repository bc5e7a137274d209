import { describeValue, ToolgateError } from './errors.js';
import type { CallContext } from './types.js';

function isAbsolute(v: unknown): boolean {
  return typeof v === 'string' && v.charCodeAt(0) === 47 && !v.includes('\0');
}

function fail(field: string, value: unknown, expected: string): never {
  throw new ToolgateError(
    'TOOLGATE_ERR_INVALID_CONTEXT',
    `CallContext.${field} must be ${expected}, got ${describeValue(value)}`,
    { field },
  );
}

/** A host handing a malformed context gets a clear error naming the field, never a guess. */
export function validateContext(ctx: unknown): asserts ctx is CallContext {
  if (ctx === null || typeof ctx !== 'object') {
    throw new ToolgateError(
      'TOOLGATE_ERR_INVALID_CONTEXT',
      `CallContext must be an object, got ${describeValue(ctx)}`,
    );
  }
  const c = ctx as Record<string, unknown>;
  // Unrolled on purpose: this runs on every call.
  if (typeof c.sessionId !== 'string' || c.sessionId === '')
    fail('sessionId', c.sessionId, 'a non-empty string');
  if (typeof c.agentId !== 'string' || c.agentId === '') fail('agentId', c.agentId, 'a non-empty string');
  if (!isAbsolute(c.cwd)) fail('cwd', c.cwd, 'an absolute path');
  if (!isAbsolute(c.workspace)) fail('workspace', c.workspace, 'an absolute path');
  if (!isAbsolute(c.home)) fail('home', c.home, 'an absolute path');
  if (c.env === null || typeof c.env !== 'object') {
    throw new ToolgateError(
      'TOOLGATE_ERR_INVALID_CONTEXT',
      `CallContext.env must be an object, got ${describeValue(c.env)}`,
      { field: 'env' },
    );
  }
}

/** A context for the current process (CLI use): cwd, HOME and environment of this process. */
export function processContext(overrides: Partial<CallContext> = {}): CallContext {
  const cwd = overrides.cwd ?? process.cwd();
  return {
    sessionId: overrides.sessionId ?? 'default',
    agentId: overrides.agentId ?? 'default',
    cwd,
    workspace: overrides.workspace ?? cwd,
    home: overrides.home ?? process.env.HOME ?? '/',
    env: overrides.env ?? process.env,
  };
}
