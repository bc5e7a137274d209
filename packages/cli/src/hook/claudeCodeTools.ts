import { isAbsolute, join } from 'node:path';
import { claudeCodeAnswer, claudeCodeDeny } from './claudeCodeAnswer.js';
import { globRoot } from './globRoot.js';
import type { HookHost, MappedCall } from './hookHost.js';
import { passThroughCall } from './mcpToolCall.js';

/**
 * Claude Code's built-in tools mapped onto the tool names toolgate's classification knows (the MCP filesystem
 * server's, which folder-rules classifies), so one policy judges the assistant's tools and MCP tools alike.
 * A tool that is neither here nor an `mcp__` tool is passed on under its own name; the hook then denies it
 * if it carries path-like arguments nobody analysed (see `pathLikeArgs`).
 */

/** Built-in tools that take no paths (web, planning, sub-agents, todos): not subject to the path-like check. */
export const NO_PATH_TOOLS: ReadonlySet<string> = new Set([
  'WebFetch',
  'WebSearch',
  'TodoWrite',
  'TodoRead',
  'Task',
  'Agent',
  'ExitPlanMode',
  'BashOutput',
  'KillShell',
  'KillBash',
  'SlashCommand',
  'AskUserQuestion',
  'Skill',
  'ListMcpResourcesTool',
  'ReadMcpResourceTool',
]);

function str(input: Record<string, unknown>, key: string): unknown {
  return input[key];
}

export function mapClaudeCodeTool(toolName: string, input: Record<string, unknown>, cwd: string): MappedCall {
  switch (toolName) {
    case 'Read':
      return { call: { tool: 'read_file', args: { path: str(input, 'file_path') } } };
    case 'NotebookRead':
      return { call: { tool: 'read_file', args: { path: str(input, 'notebook_path') } } };
    case 'Write':
      return { call: { tool: 'write_file', args: { path: str(input, 'file_path') } } };
    case 'Edit':
    case 'MultiEdit':
      return { call: { tool: 'edit_file', args: { path: str(input, 'file_path') } } };
    case 'NotebookEdit':
      return { call: { tool: 'edit_file', args: { path: str(input, 'notebook_path') } } };
    case 'LS':
      return { call: { tool: 'list_directory', args: { path: str(input, 'path') } } };
    case 'Grep': {
      // Grep reads the contents of every file beneath its path: a read subtree (folder-rules' `Grep`), not
      // search_files, which matches names only (a list).
      const path = str(input, 'path') ?? cwd;
      return { call: { tool: 'Grep', args: { path } } };
    }
    case 'Glob': {
      const pattern = str(input, 'pattern');
      const base = str(input, 'path') ?? cwd;
      if (typeof pattern !== 'string' || typeof base !== 'string')
        return { call: { tool: 'search_files', args: { path: base, pattern } } };
      const root = globRoot(pattern, isAbsolute(base) ? base : join(cwd, base));
      if (root === undefined)
        return { uncertain: `glob pattern ${JSON.stringify(pattern)} climbs with ".." after a wildcard` };
      return { call: { tool: 'search_files', args: { path: root, pattern: '**' } } };
    }
    case 'Bash':
      return { call: { tool: 'bash', args: { command: str(input, 'command') } } };
    default:
      return { call: passThroughCall(toolName, input) };
  }
}

/** `toolgate hook claude-code`: PreToolUse, prompts answered `ask` so Claude Code's own dialog asks the human. */
export const claudeCode: HookHost = {
  name: 'claude-code',
  eventName: 'PreToolUse',
  projectDirEnv: 'CLAUDE_PROJECT_DIR',
  resolvePrompts: false,
  noPathTools: NO_PATH_TOOLS,
  map: mapClaudeCodeTool,
  answer: claudeCodeAnswer,
  deny: claudeCodeDeny,
};
