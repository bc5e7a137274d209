import type { Decision, RejectionEnvelope } from '@toolgate/core';
import { type AnswerOptions, blockingError, denyReason, type HookAnswer, promptReason } from './hookHost.js';

// Claude Code hooks reference (https://code.claude.com/docs/en/hooks, "PreToolUse decision control"): exit 0
// with `hookSpecificOutput.permissionDecision` allow | deny | ask and `permissionDecisionReason`. `allow`
// skips Claude Code's own permission prompt; `ask` shows the prompt with our reason; `deny` blocks the call and
// the reason is shown to Claude. Exit 0 with no output leaves the call to the normal permission flow.
function output(permissionDecision: 'allow' | 'deny' | 'ask', reason: string): string {
  return `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision, permissionDecisionReason: reason } })}\n`;
}

export function claudeCodeDeny(envelope: RejectionEnvelope): HookAnswer {
  return { stdout: output('deny', denyReason(envelope)), stderr: '', exitCode: 0 };
}

/**
 * allow ⇒ no output (exit 0): toolgate found nothing to object to, and Claude Code's own permission rules and
 * prompt run as they would without it — installing the hook never makes the assistant less careful. Only with
 * the `approveAllowed` opt-in does an allow that judged paths become `allow` (which skips Claude Code's prompt).
 * prompt ⇒ `ask`: Claude Code's permission dialog is the human approval, with our reason shown in it.
 * deny ⇒ `deny` with the rejection envelope, so the model can act on code, path, roots and hint.
 */
export function claudeCodeAnswer(decision: Decision, options: AnswerOptions = {}): HookAnswer {
  if (decision.action === 'allow') {
    if (!options.approveAllowed || decision.accesses.length === 0)
      return { stdout: '', stderr: '', exitCode: 0 };
    return {
      stdout: output('allow', `toolgate: allowed by policy (${decision.accesses.length} path(s) checked)`),
      stderr: '',
      exitCode: 0,
    };
  }
  if (decision.action === 'prompt')
    return { stdout: output('ask', promptReason(decision)), stderr: '', exitCode: 0 };
  if (!decision.envelope) return blockingError(`denied (${decision.reasons[0]?.code ?? 'unknown'})`);
  return claudeCodeDeny(decision.envelope);
}
