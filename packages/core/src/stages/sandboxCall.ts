import type { CallStateImpl } from '../callState.js';
import type { Access, CallContext, Finding, SandboxedRun, Sandboxer, ToolCall } from '../types.js';

/**
 * Deny codes the OS sandbox can stand in for: what analysis could not prove, never what the policy forbids.
 * A static deny (PATH_DENIED, PATH_TRAVERSAL, SHELL_METACHARACTER, UNKNOWN_TOOL…) stays a deny.
 */
export const SANDBOXABLE: ReadonlySet<string> = new Set([
  'PATH_UNCERTAIN',
  'SHELL_UNCERTAIN',
  'SHELL_BUDGET',
  'SUBTREE_UNBOUNDED',
  // A host analysis cannot name: the sandbox's proxy judges the host the program really connects to.
  'NETWORK_UNCERTAIN',
]);

/** A shell call (the shell plugin analysed it) under a policy that sandboxes. */
export function sandboxing(sandbox: Sandboxer | undefined, state: CallStateImpl): sandbox is Sandboxer {
  return sandbox !== undefined && sandbox.mode !== 'off' && state.claimed('shell');
}

type Tap = { fn: (...args: unknown[]) => unknown };

/**
 * The synchronous tap loop when the call may be sandboxed. A tap stops at its first deny; when that deny is
 * one the sandbox can stand in for, it is deferred and the tap runs again without that access, so a static
 * deny of another access in the same call still denies (`cat ~/.ssh/id_rsa; npm test` stays denied).
 */
export function judgeForSandbox(
  taps: readonly Tap[],
  call: ToolCall,
  state: CallStateImpl,
): Finding | undefined {
  const all = state.accesses;
  try {
    for (const tap of taps) {
      // Each tap sees every access: only its own re-run leaves out what it deferred.
      state.accesses = all;
      const mark = state.mark();
      let result = tap.fn(call, state) as Finding | undefined;
      while (result !== undefined && SANDBOXABLE.has(result.code)) {
        state.deferred.push(result);
        const access = result.access;
        if (access === undefined || !state.accesses.includes(access)) {
          result = undefined;
          break;
        }
        state.accesses = state.accesses.filter((a) => a !== access);
        state.rollback(mark);
        result = tap.fn(call, state) as Finding | undefined;
      }
      if (result !== undefined) return result;
    }
    return undefined;
  } finally {
    state.accesses = all;
  }
}

/**
 * Asks the sandbox for the rewritten call. A sandbox that cannot run (or throws) yields a deny that says why
 * — never an unconfined run.
 */
export function rewriteForSandbox(
  sandbox: Sandboxer,
  call: ToolCall,
  ctx: CallContext,
  state: CallStateImpl,
  approved: readonly Access[],
): { sandboxed: SandboxedRun } | { deny: Finding } {
  let why: string;
  try {
    const r = sandbox.rewrite(call, ctx, approved);
    if (!('unavailable' in r)) {
      const mode = sandbox.mode === 'always' ? 'always' : 'uncertain';
      return {
        sandboxed: Object.freeze({
          argv: Object.freeze([...r.argv]),
          command: r.command,
          args: Object.freeze({ ...r.args }),
          uncertain: Object.freeze([...state.deferred]),
          mode,
          ...(r.limits ? { limits: r.limits } : {}),
        }),
      };
    }
    why = r.unavailable;
  } catch (error) {
    why = `the sandbox failed: ${error instanceof Error ? error.message : String(error)}`;
  }
  const first = state.deferred[0];
  return {
    deny: {
      action: 'deny',
      code: 'SANDBOX_UNAVAILABLE',
      reason: `${first ? `${first.reason}; ` : ''}it would run inside the OS sandbox, which is unavailable: ${why}`,
      plugin: 'core',
      ...(first?.access ? { access: first.access } : {}),
      hint: 'Rewrite the command so its paths can be checked (literal paths, no inline code), or ask the user.',
    },
  };
}
