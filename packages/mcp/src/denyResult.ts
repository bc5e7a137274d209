import type { Decision, RejectionEnvelope } from '@toolgate/core';

/** The MCP `CallToolResult` a denied call gets instead of reaching the server. */
export interface DeniedToolResult {
  [key: string]: unknown;
  isError: true;
  content: [{ type: 'text'; text: string }];
  structuredContent?: undefined;
}

/**
 * A denied call becomes a tool *result* with `isError: true`, not a JSON-RPC error: MCP clients hand tool
 * results to the model, so the model reads the envelope (code, path, allowed roots, hint) and can act on it.
 */
export function denyResult(envelope: RejectionEnvelope): DeniedToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(envelope) }] };
}

/** For a decision that is not `allow`: its envelope, or one built for the (impossible) case it has none. */
export function envelopeOf(decision: Decision): RejectionEnvelope {
  return (
    decision.envelope ?? {
      error: 'Tool call rejected',
      code: decision.reasons[0]?.code ?? 'PROMPT_UNANSWERED',
      tool_name: decision.tool,
      hint: 'Ask the user how to proceed.',
      decision_id: decision.id,
    }
  );
}
