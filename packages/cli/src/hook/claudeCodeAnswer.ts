import type { Decision, RejectionEnvelope } from '@toolgate/core';
import { blockingError, denyReason, type HookAnswer } from './hookHost.js';

// Claude Code hooks reference, PreToolUse decision control: exit 0 with
// `hookSpecificOutput.permissionDecision` allow | deny | ask and `permissionDecisionReason`.
function output(permissionDecision: 'allow' | 'deny' | 'ask', reason: string): string {
  return `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision, permissionDecisionReason: reason } })}\n`;
}

export function claudeCodeDeny(envelope: RejectionEnvelope): HookAnswer {
  return { stdout: output('deny', denyReason(envelope)), stderr: '', exitCode: 0 };
}

/**
 * allow ⇒ `allow` when toolgate judged paths (the policy vouches for them), and no output at all when the call
 * touched none — toolgate has no opinion then, and the assistant's own permission rules apply as usual.
 * prompt ⇒ `ask`: the assistant's permission dialog is the human approval. deny ⇒ `deny` with the envelope.
 */
export function claudeCodeAnswer(decision: Decision): HookAnswer {
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
  if (!decision.envelope) return blockingError(`denied (${decision.reasons[0]?.code ?? 'unknown'})`);
  return claudeCodeDeny(decision.envelope);
}
