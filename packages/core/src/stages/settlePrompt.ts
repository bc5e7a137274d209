import type { CallStateImpl } from '../callState.js';
import type { GuardHooks } from '../hooks.js';
import { PluginFailure } from '../pluginFailure.js';
import type { ApprovalOutcome, Finding, PromptAnswer, PromptRequest, ToolCall } from '../types.js';

export interface Settled {
  deny: Finding | undefined;
  approval: ApprovalOutcome | undefined;
}

/**
 * Stage 3: one approval request for every prompt finding of the call (seed 004). Approved ⇒ no deny; refused,
 * timed out or unanswered ⇒ a deny carrying the first prompt's path. The request's signal is aborted once
 * settled, so strategies still asking withdraw their question.
 */
export async function settlePrompt(
  hooks: GuardHooks,
  call: ToolCall,
  state: CallStateImpl,
  failClosed: (error: unknown) => Finding,
): Promise<Settled> {
  const settled = new AbortController();
  const request: PromptRequest = {
    signal: settled.signal,
    id: state.id,
    call,
    ctx: state.ctx,
    findings: [...state.prompts],
    accesses: [...state.accesses],
  };
  const first = state.prompts[0]!;
  try {
    const answer: PromptAnswer | undefined =
      hooks.onPrompt.taps.length > 0 ? await hooks.onPrompt.promise(request, state) : undefined;
    if (answer === undefined) {
      return {
        deny: {
          ...first,
          action: 'deny',
          code: 'PROMPT_UNANSWERED',
          reason: 'approval required, and no approver answered',
          plugin: 'core',
        },
        approval: undefined,
      };
    }
    const approval: ApprovalOutcome = {
      approved: answer.approved,
      by: answer.by ?? 'unknown',
      ...(answer.reason ? { reason: answer.reason } : {}),
      ...(answer.grant === undefined ? {} : { grant: answer.grant }),
    };
    if (answer.approved) return { deny: undefined, approval };
    return {
      deny: {
        ...first,
        action: 'deny',
        code: answer.code ?? 'PROMPT_DENIED',
        reason: answer.reason ?? 'approval denied',
        plugin: answer.by ?? first.plugin,
      },
      approval,
    };
  } catch (error) {
    const finding = failClosed(error);
    const deny: Finding =
      error instanceof PluginFailure && error.kind === 'timeout'
        ? {
            ...first,
            action: 'deny',
            code: 'PROMPT_TIMEOUT',
            reason: `approval timed out: ${error.message}`,
            plugin: error.plugin,
          }
        : finding;
    return { deny, approval: undefined };
  } finally {
    settled.abort();
  }
}
