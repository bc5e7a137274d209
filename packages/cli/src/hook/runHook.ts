import { isAbsolute } from 'node:path';
import type { CallContext, Decision, Guard } from '@toolgate/core';
import { MalformedEventError, parsePreToolUseEvent } from './hookEvent.js';
import { blockingError, type HookAnswer, type HookHost } from './hookHost.js';
import { pathLikeArg } from './pathLikeArgs.js';
import { sandboxedAnswer } from './sandboxedAnswer.js';

export interface HookOptions {
  guard: Guard;
  /** The workspace root (`<workspace>` in policies); default the host's project-dir variable, else the event's `cwd`. */
  workspace?: string;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Told the guard's decision (the command reports audit failures differently for an allow). */
  onDecision?: (decision: Decision) => void;
  /** Answer policy allows with the host's "allow" (skipping its own permission prompt). Off by default. */
  approveAllowed?: boolean;
}

function projectDir(value: string | undefined): string | undefined {
  return value !== undefined && isAbsolute(value) ? value : undefined;
}

/**
 * One before-tool event in, one answer out. Never throws: anything unexpected becomes a blocking error
 * (exit 2), because the assistants treat any other failure of a hook as "no objection" and run the tool.
 */
export async function runHook(host: HookHost, stdin: string, options: HookOptions): Promise<HookAnswer> {
  try {
    const event = parsePreToolUseEvent(stdin, host.eventName);
    const mapped = host.map(event.toolName, event.toolInput, event.cwd);
    if ('uncertain' in mapped) return blockingError(mapped.uncertain);
    const ctx: CallContext = {
      sessionId: event.sessionId,
      agentId: host.name,
      cwd: mapped.cwd ?? event.cwd,
      workspace: options.workspace ?? projectDir(options.env[host.projectDirEnv]) ?? event.cwd,
      home: options.home,
      env: options.env,
    };
    const decision = await options.guard.check(mapped.call, ctx, { resolvePrompts: host.resolvePrompts });
    options.onDecision?.(decision);
    // Fail closed on tools nobody analysed: allowed with no accesses, yet carrying path-like arguments.
    if (
      decision.action === 'allow' &&
      decision.accesses.length === 0 &&
      !host.noPathTools.has(event.toolName)
    ) {
      const arg = pathLikeArg(mapped.call.args);
      if (arg !== undefined) {
        return host.deny({
          error: `Tool call rejected: unknown tool ${event.toolName} has a path-like argument ${arg} that no plugin analysed`,
          code: 'UNKNOWN_TOOL',
          tool_name: decision.tool,
          hint: 'This tool is not known to the guard; use a known file tool or ask the user.',
          decision_id: decision.id,
        });
      }
    }
    if (decision.sandboxed) return sandboxedAnswer(host, decision, event.toolInput);
    return host.answer(decision, { approveAllowed: options.approveAllowed === true });
  } catch (error) {
    if (error instanceof MalformedEventError) return blockingError(error.message);
    return blockingError(`internal error: ${error instanceof Error ? error.message : String(error)}`);
  }
}
