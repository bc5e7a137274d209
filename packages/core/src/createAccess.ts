import { type ResolveOptions, resolvePath } from './resolvePath.js';
import type { Access, CallContext, Op, ResolvedPath, Scope } from './types.js';

export interface CreateAccessOptions extends ResolveOptions {
  /** Which extractor and argument produced it, e.g. `folder-rules:args.path`. */
  origin: string;
  scope?: Scope;
  /** Force the access uncertain (the extractor knows more than the resolver, e.g. `$(…)` in a word). */
  uncertain?: string;
}

/**
 * Builds an `Access` for a raw path: resolves it with `resolvePath` (kernel semantics) and keeps raw,
 * lexical and real forms. An access on a link itself (`followFinal: false`) is marked `onLink`.
 *
 * @example
 * ```ts
 * import { createAccess } from '@toolgate/core';
 * const a = createAccess('notes.md', 'write', ctx, { origin: 'my-plugin:args.path' });
 * ```
 */
export function createAccess(
  raw: string,
  op: Op,
  ctx: Pick<CallContext, 'cwd' | 'workspace' | 'home' | 'env'>,
  options: CreateAccessOptions,
  resolved: ResolvedPath = resolvePath(raw, ctx, options),
): Access {
  const certain = resolved.certain && options.uncertain === undefined;
  const access: Access = {
    op,
    scope: options.scope ?? 'path',
    raw,
    path: resolved.lexical,
    realPath: certain ? resolved.real : null,
    origin: options.origin,
    certain,
  };
  const reason = options.uncertain ?? resolved.reason;
  if (!certain && reason !== undefined) access.reason = reason;
  if (resolved.hops.length > 0) access.hops = resolved.hops;
  if (options.followFinal === false) access.onLink = true;
  return access;
}

/** An access whose path cannot be known at all (a parse failure, a path built from `$(…)`). */
export function uncertainAccess(
  raw: string,
  op: Op,
  origin: string,
  reason: string,
  scope: Scope = 'path',
): Access {
  return { op, scope, raw, path: raw, realPath: null, origin, certain: false, reason };
}
