import { ToolgateError, describeValue } from './errors.js';
import type { CallContext } from './types.js';

const ABSOLUTE = ['cwd', 'workspace', 'home'] as const;

/** A host handing a malformed context gets a clear error naming the field, never a guess. */
export function validateContext(ctx: unknown): asserts ctx is CallContext {
  if (ctx === null || typeof ctx !== 'object') {
    throw new ToolgateError('TOOLGATE_ERR_INVALID_CONTEXT', `CallContext must be an object, got ${describeValue(ctx)}`);
  }
  const c = ctx as Record<string, unknown>;
  for (const field of ['sessionId', 'agentId'] as const) {
    if (typeof c[field] !== 'string' || c[field] === '') {
      throw new ToolgateError('TOOLGATE_ERR_INVALID_CONTEXT', `CallContext.${field} must be a non-empty string, got ${describeValue(c[field])}`, { field });
    }
  }
  for (const field of ABSOLUTE) {
    const v = c[field];
    if (typeof v !== 'string' || !v.startsWith('/') || v.includes('\0')) {
      throw new ToolgateError('TOOLGATE_ERR_INVALID_CONTEXT', `CallContext.${field} must be an absolute path, got ${describeValue(v)}`, { field });
    }
  }
  if (c.env === null || typeof c.env !== 'object') {
    throw new ToolgateError('TOOLGATE_ERR_INVALID_CONTEXT', `CallContext.env must be an object, got ${describeValue(c.env)}`, { field: 'env' });
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
