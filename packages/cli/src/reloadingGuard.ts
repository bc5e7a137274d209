import { EventEmitter } from 'node:events';
import type { Guard, PolicySource, SessionGuard, ToolCall } from '@toolgate/core';

/** A guard whose policy can change between calls, with which version judged each call. */
export interface ReloadingGuard extends Guard {
  /** The hash of the version new calls are judged by. */
  readonly hash: string;
  /** The hash of the version that judged (or is judging) `call` — the audit trail's `policyHash`. */
  hashOf(call: ToolCall): string | undefined;
  /** Stops following the source. */
  close(): void;
}

/**
 * A Guard that follows a PolicySource of guards: each call is judged from start to end by the guard that
 * was current when it started (a swap never happens during a call), and the next call uses the new one.
 * Guards are frozen once they serve, so a new version is a new guard built off the decision path; the swap
 * itself is one assignment. Events of every version reach `events`. Session state kept in memory by the old
 * guard (core's sessions) is not carried over; plugins that keep it in a store (approvals with `dir` or a
 * `store`) reload it, and plugin instances shared by the versions keep theirs.
 *
 * @example
 * ```ts
 * const source = await filePolicySource(file, { load: async () => {
 *   const built = await buildGuard({ policy: file });
 *   return { policy: built.guard, hash: built.policy.hash };
 * } });
 * const guard = reloadingGuard(source);
 * ```
 */
export function reloadingGuard(source: PolicySource<Guard>): ReloadingGuard {
  const events = new EventEmitter();
  const forwarded = new WeakSet<Guard>();
  const judgedBy = new WeakMap<ToolCall, string>();
  const seen = new Set<Guard>();
  const forward = (g: Guard) => {
    if (forwarded.has(g)) return;
    forwarded.add(g);
    seen.add(g);
    const original = g.events.emit.bind(g.events);
    g.events.emit = (name: string | symbol, ...args: unknown[]): boolean => {
      const handled = original(name, ...args);
      // 'error' without a listener would throw from EventEmitter: only forwarded when someone listens.
      if (name !== 'error' || events.listenerCount('error') > 0) events.emit(name, ...args);
      return handled || events.listenerCount(name) > 0;
    };
  };
  let current = source.current();
  forward(current.policy);
  const unsubscribe = source.subscribe((next) => {
    forward(next.policy);
    current = next;
    events.emit('policy-changed', { hash: next.hash });
  });

  const guard: ReloadingGuard = {
    get hash() {
      return current.hash;
    },
    hashOf: (call) => (call !== null && typeof call === 'object' ? judgedBy.get(call) : undefined),
    get plugins() {
      return current.policy.plugins;
    },
    events,
    get frozen() {
      return current.policy.frozen;
    },
    use() {
      throw new Error(
        'a reloading guard is built by its policy source; add plugins where the source builds guards',
      );
    },
    check(call, ctx, options) {
      const v = current;
      if (call !== null && typeof call === 'object') judgedBy.set(call, v.hash);
      return v.policy.check(call, ctx, options);
    },
    session(ctx): SessionGuard {
      return {
        ctx,
        check: (call, options) => guard.check(call, ctx, options),
        wrap: (tool, fn, options) => (args) => current.policy.wrap(tool, fn, options)(args, ctx),
        describeTools: (tools) => current.policy.describeTools(tools, ctx),
        end: () => guard.endSession(ctx.sessionId),
      };
    },
    endSession(sessionId) {
      for (const g of seen) g.endSession(sessionId);
    },
    wrap: (tool, fn, options) => (args, ctx) => current.policy.wrap(tool, fn, options)(args, ctx),
    describeTools: (tools, ctx) => current.policy.describeTools(tools, ctx),
    close: unsubscribe,
  };
  return guard;
}
