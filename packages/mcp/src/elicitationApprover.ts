import {
  describeValue,
  type GuardPlugin,
  type PromptAnswer,
  type PromptRequest,
  Stage,
  ToolgateError,
} from '@toolgate/core';

/** Asks the human at the other end of an MCP client; resolves `undefined` when the client cannot ask. */
export type Elicit = (request: PromptRequest) => Promise<PromptAnswer | undefined>;

export interface ElicitationApproverOptions {
  /**
   * Stage of the `onPrompt` tap. Default: just before `Stage.APPROVAL`, so existing grants (`Stage.GRANTS`)
   * answer first and the configured strategy (approvals plugin) answers only when the client cannot ask.
   */
  stage?: number;
}

/** A guard plugin that routes prompts of a session to the MCP client connected for it. */
export interface ElicitationApprover extends GuardPlugin {
  /** Route prompts of `sessionId` to `elicit`; returns the function that removes the route. */
  bind(sessionId: string, elicit: Elicit): () => void;
}

/**
 * Prompt-tier calls answered by the human through the MCP client (`elicitation/create`). Sessions whose
 * client did not declare elicitation are not bound, and their prompts fall through to the next approver.
 *
 * @example
 * ```ts
 * import { createGuard } from '@toolgate/core';
 * import { createGateway, elicitationApprover } from '@toolgate/mcp';
 * const elicitation = elicitationApprover();
 * const guard = createGuard({ plugins: [policy, elicitation] });
 * const gateway = createGateway({ guard, ctx, elicitation, upstream: { command: 'node', args: ['server.js'] } });
 * ```
 */
export function elicitationApprover(options: ElicitationApproverOptions = {}): ElicitationApprover {
  const stage = options.stage ?? Stage.APPROVAL - 100;
  if (typeof stage !== 'number' || !Number.isFinite(stage)) {
    throw new ToolgateError(
      'TOOLGATE_ERR_INVALID_OPTIONS',
      `elicitationApprover: option stage must be a finite number, got ${describeValue(stage)}`,
      { field: 'stage' },
    );
  }
  const routes = new Map<string, Elicit>();
  return {
    name: 'mcp-elicitation',
    apply(hooks) {
      hooks.onPrompt.tapPromise({ stage }, async (request) => {
        const elicit = routes.get(request.ctx.sessionId);
        return elicit ? elicit(request) : undefined;
      });
    },
    bind(sessionId, elicit) {
      routes.set(sessionId, elicit);
      return () => {
        if (routes.get(sessionId) === elicit) routes.delete(sessionId);
      };
    },
  };
}
