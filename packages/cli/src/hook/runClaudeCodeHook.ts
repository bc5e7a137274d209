import type { CallContext, Decision, Guard } from '@toolgate/core';
import { answerFor, blockingError, type HookAnswer } from './claudeCodeAnswer.js';
import { MalformedEventError, parsePreToolUseEvent } from './claudeCodeEvent.js';
import { mapClaudeCodeTool, NO_PATH_TOOLS } from './claudeCodeTools.js';
import { pathLikeArg } from './pathLikeArgs.js';

export interface ClaudeCodeHookOptions {
  guard: Guard;
  /** The workspace root (`<workspace>` in policies); default the event's `cwd`. */
  workspace?: string;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
}

function denyOnly(answer: HookAnswer, decision: Decision, reason: string, code: string): HookAnswer {
  const envelope = {
    error: `Tool call rejected: ${reason}`,
    code,
    tool_name: decision.tool,
    hint: 'This tool is not known to the guard; use a known file tool or ask the user.',
    decision_id: decision.id,
  };
  return {
    ...answer,
    stdout: `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: `toolgate: ${JSON.stringify(envelope)}` } })}\n`,
  };
}

/**
 * One PreToolUse event in, one answer out. Never throws: anything unexpected becomes a blocking error
 * (exit 2), because Claude Code treats any other failure of a hook as "no objection" and runs the tool.
 */
export async function runClaudeCodeHook(stdin: string, options: ClaudeCodeHookOptions): Promise<HookAnswer> {
  try {
    const event = parsePreToolUseEvent(stdin);
    const mapped = mapClaudeCodeTool(event.toolName, event.toolInput, event.cwd);
    if ('uncertain' in mapped) return blockingError(mapped.uncertain);
    const ctx: CallContext = {
      sessionId: event.sessionId,
      agentId: 'claude-code',
      cwd: event.cwd,
      workspace: options.workspace ?? event.cwd,
      home: options.home,
      env: options.env,
    };
    // Prompts are not resolved here: the assistant's own permission dialog asks the human (`ask`).
    const decision = await options.guard.check(mapped.call, ctx, { resolvePrompts: false });
    const answer = answerFor(decision);
    // Fail closed on tools nobody analysed: allowed with no accesses, yet carrying path-like arguments.
    if (decision.action === 'allow' && decision.accesses.length === 0 && !NO_PATH_TOOLS.has(event.toolName)) {
      const arg = pathLikeArg(mapped.call.args);
      if (arg !== undefined)
        return denyOnly(
          answer,
          decision,
          `unknown tool ${event.toolName} has a path-like argument ${arg} that no plugin analysed`,
          'UNKNOWN_TOOL',
        );
    }
    return answer;
  } catch (error) {
    if (error instanceof MalformedEventError) return blockingError(error.message);
    return blockingError(`internal error: ${error instanceof Error ? error.message : String(error)}`);
  }
}
