import { type Decision, sandboxNotice } from '@toolgate/core';
import type { HookAnswer, HookHost } from './hookHost.js';

/**
 * A call the policy runs inside the OS sandbox (`sandbox: uncertain | always`). Claude Code's PreToolUse
 * rewrites a Bash call through `updatedInput`: the same input with the command wrapped in bubblewrap,
 * allowed (or `ask` when a prompt-tier path needs the human, who then approves the wrapped command). A host
 * whose hook cannot rewrite the call gets a deny: running the original command would run it unconfined.
 */
export function sandboxedAnswer(
  host: HookHost,
  decision: Decision,
  toolInput: Record<string, unknown>,
): HookAnswer {
  const run = decision.sandboxed;
  const command = run?.args.command;
  const envelope = decision.envelope;
  if (host.name === 'claude-code' && run && typeof command === 'string' && envelope) {
    const hookSpecificOutput = {
      hookEventName: 'PreToolUse',
      permissionDecision: decision.action === 'prompt' ? 'ask' : 'allow',
      permissionDecisionReason: `toolgate: ${envelope.error}`,
      updatedInput: { ...toolInput, command },
      // The model is told the call ran confined, so a "Permission denied" or a read-only file inside reads
      // as the policy speaking rather than as a broken machine (issue 22).
      additionalContext: sandboxNotice(decision),
    };
    return { stdout: `${JSON.stringify({ hookSpecificOutput })}\n`, stderr: '', exitCode: 0 };
  }
  return host.deny({
    error: `Tool call rejected: it would run inside the OS sandbox, and ${host.name}'s hook cannot rewrite a call`,
    code: 'SANDBOX_UNAVAILABLE',
    tool_name: decision.tool,
    hint: 'Rewrite the command so its paths can be checked (literal paths, no inline code), or ask the user.',
    decision_id: decision.id,
  });
}
