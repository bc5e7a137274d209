/**
 * The before-tool event a coding assistant writes to a command hook's stdin. Claude Code (PreToolUse) and
 * Gemini CLI (BeforeTool) share the shape: `session_id`, `transcript_path`, `cwd`, `hook_event_name`,
 * `tool_name`, `tool_input` (+ `tool_use_id` / `timestamp`). Only what toolgate needs is kept; everything is
 * validated, because a malformed event must end in a block, never in a crash the assistant ignores.
 */
export interface PreToolUseEvent {
  sessionId: string;
  cwd: string;
  toolName: string;
  toolInput: Record<string, unknown>;
  toolUseId?: string;
}

export class MalformedEventError extends Error {
  override readonly name = 'MalformedEventError';
}

function field(event: Record<string, unknown>, name: string): string {
  const value = event[name];
  if (typeof value !== 'string' || value === '')
    throw new MalformedEventError(
      `hook event field ${name} must be a non-empty string, got ${JSON.stringify(value) ?? 'undefined'}`,
    );
  return value;
}

export function parsePreToolUseEvent(text: string, eventName = 'PreToolUse'): PreToolUseEvent {
  let event: unknown;
  try {
    event = JSON.parse(text);
  } catch (error) {
    throw new MalformedEventError(
      `hook event on stdin is not JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (event === null || typeof event !== 'object' || Array.isArray(event))
    throw new MalformedEventError('hook event on stdin must be a JSON object');
  const record = event as Record<string, unknown>;
  const hookEvent = field(record, 'hook_event_name');
  if (hookEvent !== eventName)
    throw new MalformedEventError(
      `this hook handles ${eventName} events only, got hook_event_name ${JSON.stringify(hookEvent)}`,
    );
  const cwd = field(record, 'cwd');
  if (!cwd.startsWith('/'))
    throw new MalformedEventError(
      `hook event field cwd must be an absolute path, got ${JSON.stringify(cwd)}`,
    );
  const input = record.tool_input;
  if (input === null || typeof input !== 'object' || Array.isArray(input))
    throw new MalformedEventError(
      `hook event field tool_input must be an object, got ${JSON.stringify(input) ?? 'undefined'}`,
    );
  const toolUseId = typeof record.tool_use_id === 'string' ? record.tool_use_id : undefined;
  return {
    sessionId: field(record, 'session_id'),
    cwd,
    toolName: field(record, 'tool_name'),
    toolInput: input as Record<string, unknown>,
    ...(toolUseId ? { toolUseId } : {}),
  };
}
