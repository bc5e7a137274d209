import type { PromptAnswer, PromptRequest } from '@toolgate/core';

/** The `elicitation/create` params for one approval request: one boolean the human must set. */
export function elicitationParams(request: PromptRequest): Record<string, unknown> {
  const lines = request.findings.map((f) => {
    const where = f.access ? ` ${f.access.op} ${f.access.realPath ?? f.access.path}` : '';
    return `-${where}: ${f.reason}`;
  });
  return {
    message: `toolgate: the agent wants to call ${request.call.tool}, which needs your approval.\n${lines.join('\n')}`,
    requestedSchema: {
      type: 'object',
      properties: {
        approve: {
          type: 'boolean',
          title: 'Allow this call?',
          description: 'Allow this one call.',
          default: false,
        },
      },
      required: ['approve'],
    },
  };
}

/** Only an explicit `accept` with `approve: true` approves; decline, cancel and anything malformed deny. */
export function elicitationAnswer(result: Record<string, unknown> | undefined): PromptAnswer {
  const content = result?.content as Record<string, unknown> | undefined;
  if (result?.action === 'accept' && content?.approve === true)
    return { approved: true, by: 'mcp-elicitation' };
  const action = typeof result?.action === 'string' ? result.action : 'no valid answer';
  return {
    approved: false,
    by: 'mcp-elicitation',
    reason: `the user did not approve (${action === 'accept' ? 'approve: false' : action})`,
  };
}
