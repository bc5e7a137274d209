import type { CallStateImpl } from '../callState.js';
import { buildEnvelope, type Disclosure, sandboxEnvelope } from '../envelope.js';
import type { GuardHooks } from '../hooks.js';
import type {
  Access,
  ApprovalOutcome,
  CallContext,
  Decision,
  Finding,
  SandboxedRun,
  ToolCall,
  Verdict,
  Violation,
} from '../types.js';

// Most calls (non-filesystem tools, clean allows) have empty lists: share one frozen empty array rather
// than freezing a fresh one per call (freezing arrays is a measurable share of the pipeline's cost).
const EMPTY: readonly never[] = Object.freeze([]);

export function frozenList<T>(list: readonly T[]): T[] {
  return (list.length === 0 ? EMPTY : Object.freeze(list)) as T[];
}

// Decision ids: a random per-process prefix and a counter — unique across processes and restarts for the
// audit trail, at a fraction of randomUUID's cost per call. The prefix is 48 random bits from Math.random
// (V8 seeds it per process from the OS) mixed with the pid and start time, in randomUUID's first 13 characters'
// shape. Not node:crypto: an id is no secret, and loading crypto (with the stream modules under it) cost a
// one-call hook process more than its decision.
function idPrefix(): string {
  const mix = (Math.floor(Math.random() * 2 ** 48) ^ (process.pid * 0x9e3779b1) ^ Date.now()) >>> 0;
  const hi = (Math.floor(Math.random() * 2 ** 16) ^ (mix & 0xffff)) & 0xffff;
  const hex = (mix.toString(16).padStart(8, '0') + hi.toString(16).padStart(4, '0')).slice(0, 12);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}`;
}
const ID_PREFIX = idPrefix();
let idCounter = 0;
export function nextId(): string {
  idCounter = (idCounter + 1) % Number.MAX_SAFE_INTEGER;
  return `${ID_PREFIX}-${idCounter.toString(36)}`;
}

/** The tool name, or `''` when the call has none (the model's output is never trusted to have a shape). */
export function toolNameOf(call: ToolCall): string {
  return call !== null && typeof call === 'object' && typeof call.tool === 'string' ? call.tool : '';
}

/** Stage 0: a call without a tool name or with non-object arguments is denied before any plugin sees it. */
export function malformedCall(call: ToolCall, tool: string): Finding | undefined {
  if (tool !== '' && call.args !== null && typeof call.args === 'object' && !Array.isArray(call.args))
    return undefined;
  return {
    action: 'deny',
    code: 'INVALID_CALL',
    reason: `malformed tool call: ${tool === '' ? 'missing tool name' : 'args must be an object'}`,
  };
}

export interface DecisionParts {
  state: CallStateImpl;
  tool: string;
  time: number;
  verdict: Verdict;
  /** The final answer: the verdict, or how its prompt was settled. */
  action: Verdict;
  deny: Finding | undefined;
  approval: ApprovalOutcome | undefined;
  disclosure: Disclosure;
  sandboxed?: SandboxedRun | undefined;
}

/** Stage 4: the frozen decision — every finding (deny first), the accesses, and the envelope of a deny. */
export function buildDecision(p: DecisionParts): Decision {
  const { state, deny, action } = p;
  const reasons: Finding[] = deny
    ? [deny, ...state.prompts]
    : state.prompts.length > 0
      ? [...state.prompts]
      : [];
  const envelope =
    action === 'deny' && deny
      ? Object.freeze(buildEnvelope(deny, p.tool, state.id, p.disclosure))
      : p.sandboxed
        ? Object.freeze(sandboxEnvelope(p.sandboxed, p.tool, state.id))
        : undefined;
  const args =
    action === 'allow' && state.hasRewrites
      ? Object.freeze({ ...state.call.args, ...Object.fromEntries(state.rewrites) })
      : undefined;
  return Object.freeze({
    id: state.id,
    action,
    verdict: p.verdict,
    tool: p.tool,
    sessionId: state.ctx.sessionId,
    agentId: state.ctx.agentId,
    reasons: frozenList(reasons),
    accesses: state.accesses as Access[],
    ...(state.network.length > 0 ? { network: frozenList(state.network) } : {}),
    matched: frozenList(state.matched),
    time: p.time,
    approval: p.approval,
    envelope,
    ...(p.sandboxed ? { sandboxed: p.sandboxed } : {}),
    ...(args ? { args } : {}),
  });
}

/**
 * Stage 5: observers run after the verdict, on a frozen decision; their taps never throw and are
 * time-bounded. They may keep what they are given past this call (deferred delivery): they get a frozen copy
 * of the context, so a host reusing its context object cannot rewrite what was recorded. Returns a promise
 * only when an observer is asynchronous (no observer, or synchronous ones only: nothing to wait for).
 */
export function observeDecision(
  hooks: GuardHooks,
  decision: Decision,
  call: ToolCall,
  ctx: CallContext,
  deny: Finding | undefined,
): Promise<void> | undefined {
  const violated = decision.action === 'deny' && deny !== undefined && hooks.onViolation.taps.length > 0;
  if (hooks.onDecision.taps.length === 0 && !violated) return undefined;
  const seen = Object.freeze({ ...ctx });
  // Synchronous observers only (the audit trail): call the wrapped taps in stage order without a promise per
  // hook. The wrappers already contain and report anything they throw.
  if (allSync(hooks.onDecision.taps) && (!violated || allSync(hooks.onViolation.taps))) {
    for (const tap of hooks.onDecision.taps) tap.fn(decision, call, seen);
    if (violated) {
      const violation: Violation = Object.freeze({ decision, call, ctx: seen, finding: deny });
      for (const tap of hooks.onViolation.taps) tap.fn(violation);
    }
    return undefined;
  }
  const observe: Promise<void>[] = [];
  if (hooks.onDecision.taps.length > 0) observe.push(hooks.onDecision.promise(decision, call, seen));
  if (violated) {
    const violation: Violation = Object.freeze({ decision, call, ctx: seen, finding: deny });
    observe.push(hooks.onViolation.promise(violation));
  }
  return Promise.all(observe).then(() => undefined);
}

function allSync(taps: readonly { type: string }[]): boolean {
  for (const t of taps) if (t.type !== 'sync') return false;
  return true;
}
