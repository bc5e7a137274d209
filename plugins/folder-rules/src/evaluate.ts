import type { Access } from '@toolgate/core';
import { type EvaluateOptions, evaluatorFor } from './evaluator.js';
import type { PatternContext } from './patterns.js';
import type { CompiledPolicy, Evaluation } from './types.js';

/**
 * Judges one access against a policy in a context: `{decision, rule, trace}`.
 *
 * @example
 * ```ts
 * import { createAccess } from '@toolgate/core';
 * import { evaluate, loadPolicy } from '@toolgate/folder-rules';
 * const policy = loadPolicy({ dialect: 'openfang', file: 'config.toml' });
 * const access = createAccess('~/.ssh/id_rsa', 'read', ctx, { origin: 'me' });
 * evaluate(policy, access, ctx).decision; // 'deny'
 * ```
 */
export function evaluate(
  policy: CompiledPolicy,
  access: Access,
  ctx: PatternContext,
  options?: EvaluateOptions,
): Evaluation {
  return evaluatorFor(policy, ctx).evaluate(access, options);
}
