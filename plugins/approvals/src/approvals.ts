import type { GuardPlugin, PluginApi, PromptAnswer, PromptRequest } from '@toolgate/core';
import { Stage } from '@toolgate/core';
import { type PreparedRequest, prepareRequest } from './approvalRequest.js';
import { askStrategy, type Outcome } from './askStrategy.js';
import { answerFromGrants, grantsFromAnswer, pruneGrants } from './grants.js';
import { type ApprovalsOptions, type CompiledOptions, compileOptions } from './options.js';
import { appendOverlay, ruleFor } from './overlayFile.js';
import {
  CANCELLED_KEY,
  persistSession,
  refreshSession,
  type SessionState,
  sessionOf,
  type Warn,
} from './sessionState.js';
import { countApprovals } from './suggestion.js';
import type { Grant } from './types.js';

const NAME = 'approvals';

const cancelledAnswer = (): PromptAnswer => ({
  approved: false,
  code: 'SESSION_CANCELLED',
  by: NAME,
  reason: 'the session was cancelled by the user (q); every later call is denied',
});

function describeGrant(g: Grant): string {
  if (g.scope === 'host') return `${g.op === 'write' ? 'sending to' : 'reading from'} ${g.path} allowed`;
  const what =
    g.scope === 'subtree'
      ? `${g.path} and its subdirectories`
      : g.scope === 'directory'
        ? `files in ${g.path}`
        : g.path;
  return `${g.op} allowed in ${what}`;
}

function grantAnswer(used: Grant[]): PromptAnswer {
  const where = used.map((g) => `${g.op} ${g.scope} ${g.path}`).join('; ');
  return {
    approved: true,
    by: 'grant',
    reason: `covered by an earlier approval of this session (${where})`,
    grant: { from: used.map((g) => ({ ...g })) },
  };
}

/**
 * Human approval for prompt-tier calls. Two taps on `onPrompt`: at `Stage.GRANTS` the session's standing
 * grants answer without asking; at `Stage.APPROVAL` the strategy is asked, once per call (seed 004), with a
 * timeout, a per-session limit and de-duplication of identical concurrent requests. Anything that is not a
 * clear approval is a denial.
 *
 * @example
 * ```ts
 * import { createGuard } from '@toolgate/core';
 * import { approvals, tty } from '@toolgate/approvals';
 * const guard = createGuard({
 *   plugins: [myPolicy(), approvals({ strategy: tty(), dir: '~/.toolgate/sessions', maxConfirmationsPerSession: 10 })],
 * });
 * ```
 */
export function approvals(options: ApprovalsOptions): GuardPlugin {
  const o = compileOptions(options);
  // Overlay writes from every session go to one file: serialise them.
  let overlayChain: Promise<void> = Promise.resolve();
  // Both taps see the same request object; prepare it once.
  const prepared = new WeakMap<PromptRequest, PreparedRequest>();
  // Core forgets idle sessions (its LRU); a cancellation must outlive that, or a session evicted and seen
  // again would be usable after its user pressed `q`. Only human cancellations land here.
  const cancelledSessions = new Set<string>();
  const prepare = (request: PromptRequest) => {
    let p = prepared.get(request);
    if (!p) {
      p = prepareRequest(request);
      prepared.set(request, p);
    }
    return p;
  };

  return {
    name: NAME,
    apply(hooks, api) {
      const warn: Warn = (message, details) => api.emit('approvals:warning', { message, ...details });
      if (o.wildMode) {
        api.emit('wild-mode', {
          plugin: NAME,
          message:
            'WILD MODE is on: every call that needs approval is approved without asking (denies still deny; every decision is still recorded)',
        });
      }

      hooks.onPrompt.tapPromise({ stage: Stage.GRANTS }, async (request, state) => {
        const s = await sessionOf(state, o.store, warn);
        // A shared store: another machine may have granted, used up or cancelled since this one last looked.
        const fresh = o.shared && o.store ? await refreshSession(s, o.store, warn) : true;
        if (s.cancelled) {
          state.session.set(CANCELLED_KEY, true);
          cancelledSessions.add(s.sessionId);
          return cancelledAnswer();
        }
        // A store that could not be read: no grant is relied on, the approver is asked.
        return fresh ? fromGrants(s, prepare(request), o, warn) : undefined;
      });

      hooks.onPrompt.tapPromise({ stage: Stage.APPROVAL }, async (request, state) => {
        if (o.wildMode) {
          return { approved: true, by: 'wild-mode', reason: 'wild mode: approved without asking' };
        }
        const s = await sessionOf(state, o.store, warn);
        const p = prepare(request);
        const shared = s.inflight.get(p.key);
        // De-duplication: an identical question already open gets one answer for every waiter.
        if (shared) {
          const answer = await shared;
          return { ...answer, reason: `${answer.reason ?? ''} (same request as a concurrent call)`.trim() };
        }
        const asking = askInTurn(s, p, o, api, warn, (rules) => {
          // The chain itself never rejects: one failed write must not fail every later one.
          overlayChain = overlayChain
            .then(() => appendOverlay(o.overlayFile!, rules))
            .catch((error: unknown) => {
              warn(`cannot persist grants to ${o.overlayFile}: ${(error as Error).message}`, {
                file: o.overlayFile,
              });
            });
          return overlayChain;
        });
        s.inflight.set(p.key, asking);
        try {
          const answer = await asking;
          if (s.cancelled) {
            state.session.set(CANCELLED_KEY, true);
            cancelledSessions.add(s.sessionId);
          }
          return answer;
        } finally {
          s.inflight.delete(p.key);
        }
      });

      // Seed 002: `q` cancels the session — every later call is denied, also calls that need no approval.
      // A synchronous tap on an in-memory flag, so calls of sessions never cancelled pay nothing.
      hooks.beforeToolCall.tap({ stage: Stage.GUARD }, (_call, state) =>
        state.session.get(CANCELLED_KEY) === true || cancelledSessions.has(state.ctx.sessionId)
          ? {
              action: 'deny',
              code: 'SESSION_CANCELLED',
              reason: 'the session was cancelled by the user (q); every later call is denied',
            }
          : undefined,
      );
    },
  };
}

async function fromGrants(
  s: SessionState,
  p: PreparedRequest,
  o: CompiledOptions,
  warn: Warn,
): Promise<PromptAnswer | undefined> {
  if (!p.grantable || s.grants.length === 0) return undefined;
  const now = o.now();
  const pruned = pruneGrants(s.grants, now);
  const used = answerFromGrants(s.grants, p.request.items, now, p.hosts);
  if (used === undefined) {
    if (pruned) await persistSession(s, o.store, warn);
    return undefined;
  }
  pruneGrants(s.grants, now);
  // A limited grant's remaining uses must survive a restart, or max uses could be reset by resuming.
  if (pruned || used.some((g) => g.usesLeft !== undefined)) await persistSession(s, o.store, warn);
  return grantAnswer(used);
}

async function askInTurn(
  s: SessionState,
  p: PreparedRequest,
  o: CompiledOptions,
  api: PluginApi,
  warn: Warn,
  persistRules: (rules: ReturnType<typeof ruleFor>[]) => Promise<void>,
): Promise<PromptAnswer> {
  const previous = s.turn;
  let release!: () => void;
  s.turn = new Promise<void>((resolve) => {
    release = resolve;
  });
  await previous;
  try {
    // The session may have changed while this request waited its turn (here, or on another machine).
    const fresh = o.shared && o.store ? await refreshSession(s, o.store, warn) : true;
    if (s.cancelled) return cancelledAnswer();
    const covered = fresh ? await fromGrants(s, p, o, warn) : undefined;
    if (covered) return covered;
    if (o.maxConfirmations !== undefined && s.confirmations >= o.maxConfirmations) {
      return {
        approved: false,
        code: 'PROMPT_LIMIT',
        by: NAME,
        reason: `approval limit reached: this session already asked ${s.confirmations} times (maxConfirmationsPerSession ${o.maxConfirmations}); add a policy rule instead`,
      };
    }
    s.confirmations += 1;
    // Real time, not o.now(): the timeout below runs on real timers, and a desk counts down to it.
    const request = { ...p.request, deadline: Date.now() + o.timeoutMs };
    const outcome: Outcome = await askStrategy(o.strategy, request, o.timeoutMs);
    return await settle(s, p, outcome, o, api, warn, persistRules);
  } finally {
    release();
  }
}

async function settle(
  s: SessionState,
  p: PreparedRequest,
  outcome: Outcome,
  o: CompiledOptions,
  api: PluginApi,
  warn: Warn,
  persistRules: (rules: ReturnType<typeof ruleFor>[]) => Promise<void>,
): Promise<PromptAnswer> {
  const by = outcome.by ?? o.strategy.name;
  if (outcome.cancelSession) {
    s.cancelled = true;
    await persistSession(s, o.store, warn);
    return { ...cancelledAnswer(), by, reason: outcome.reason ?? cancelledAnswer().reason };
  }
  if (!outcome.approved) {
    await persistSession(s, o.store, warn);
    return {
      approved: false,
      by,
      reason: outcome.reason ?? 'approval denied',
      ...(outcome.code ? { code: outcome.code } : {}),
    };
  }
  const now = o.now();
  const created = p.grantable ? grantsFromAnswer(outcome, p.request.items, o.grants, now, by, p.hosts) : [];
  s.grants.push(...created);
  // Seed 002 tells the human what the answer granted ("* /workspace and subdirectories added…").
  for (const g of created) o.strategy.notify?.(`* ${describeGrant(g)} for the rest of this session`);
  await persistSession(s, o.store, warn);
  if (outcome.persist && created.length > 0) {
    if (o.overlayFile === undefined) {
      warn(
        'an approval asked to persist its grant, but no overlayFile is configured; kept for this session only',
        {
          sessionId: s.sessionId,
        },
      );
    } else {
      // Overlays hold path rules: a host grant stays for the session (a policy's network section lists hosts).
      const paths = created.filter((g) => g.scope !== 'host');
      if (paths.length < created.length)
        warn(
          'a host approval is kept for this session only: add the host to the network section to keep it',
          {
            sessionId: s.sessionId,
          },
        );
      if (paths.length > 0) await persistRules(paths.map((g) => ruleFor(g, s.sessionId)));
    }
  }
  if (o.suggestAfter !== undefined) {
    for (const suggestion of countApprovals(s, p.request.items, o.suggestAfter)) {
      api.emit('approvals:suggestion', suggestion);
      o.strategy.notify?.(suggestion.message);
    }
  }
  return {
    approved: true,
    by,
    reason: outcome.reason ?? 'approved',
    grant: {
      scope: p.grantable ? (outcome.grant ?? 'once') : 'once',
      persist: outcome.persist === true,
      grants: created.map((g) => ({ ...g })),
    },
  };
}
