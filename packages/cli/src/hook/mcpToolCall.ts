import type { ToolCall } from '@toolgate/core';

/**
 * An assistant's name for a tool it did not define itself: `mcp__<server>__<tool>` is judged as the server's
 * tool (server names may contain "_", so the tool name follows the last "__"); anything else as named.
 */
export function passThroughCall(toolName: string, input: Record<string, unknown>): ToolCall {
  if (toolName.startsWith('mcp__')) {
    const at = toolName.lastIndexOf('__');
    const tool = toolName.slice(at + 2);
    if (at > 4 && tool !== '') return { tool, args: input };
  }
  return { tool: toolName, args: input };
}
