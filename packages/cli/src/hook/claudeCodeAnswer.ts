import type { Decision, RejectionEnvelope } from '@toolgate/core';

/** What the hook process prints and exits with (hooks reference: PreToolUse decision control). */
export interface HookAnswer {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** Exit code 2 is Claude Code's "blocking error": the call is blocked and stderr is fed to the model. */
export const BLOCK = 2;

function output(permissionDecision: 'allow' | 'deny' | 'ask', reason: string): string {
  return `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision, permissionDecisionReason: reason } })}\n`;
}

/** The deny reason is shown to the model: the envelope itself, so it can act on code, path, roots and hint. */
function denyReason(envelope: RejectionEnvelope): string {
  return `toolgate: ${JSON.stringify(envelope)}`;
}

/**
 * allow ⇒ `allow` when toolgate judged paths (the policy vouches for them), and no output at all when the call
 * touched none — toolgate has no opinion then, and the assistant's own permission rules apply as usual.
 * prompt ⇒ `ask`: the assistant's permission dialog is the human approval. deny ⇒ `deny` with the envelope.
 */
export function answerFor(decision: Decision): HookAnswer {
  if (decision.action === 'allow') {
    if (decision.accesses.length === 0) return { stdout: '', stderr: '', exitCode: 0 };
    return {
      stdout: output('allow', `toolgate: allowed by policy (${decision.accesses.length} path(s) checked)`),
      stderr: '',
      exitCode: 0,
    };
  }
  if (decision.action === 'prompt') {
    const reasons = decision.reasons.map((r) =>
      r.access ? `${r.access.op} ${r.access.realPath ?? r.access.path}: ${r.reason}` : r.reason,
    );
    return {
      stdout: output('ask', `toolgate: approval needed — ${reasons.join('; ')}`),
      stderr: '',
      exitCode: 0,
    };
  }
  const envelope = decision.envelope;
  if (!envelope) return blockingError(`denied (${decision.reasons[0]?.code ?? 'unknown'})`);
  return { stdout: output('deny', denyReason(envelope)), stderr: '', exitCode: 0 };
}

/** Malformed input or an internal error: block the call; the reason goes to stderr. */
export function blockingError(reason: string): HookAnswer {
  return { stdout: '', stderr: `toolgate: call blocked: ${reason}\n`, exitCode: BLOCK };
}
