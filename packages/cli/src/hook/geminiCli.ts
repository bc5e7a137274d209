import { isAbsolute, join } from 'node:path';
import type { Decision, RejectionEnvelope } from '@toolgate/core';
import { globRoot } from './globRoot.js';
import {
  type AnswerOptions,
  blockingError,
  denyReason,
  type HookAnswer,
  type HookHost,
  type MappedCall,
} from './hookHost.js';
import { passThroughCall } from './mcpToolCall.js';

// Gemini CLI hooks reference (https://geminicli.com/docs/hooks/reference, "BeforeTool"): exit 0 with JSON on
// stdout; `decision: "deny"` with `reason` blocks the tool and sends the reason to the agent as the tool error;
// exit 2 blocks with stderr as the reason. There is no "ask": prompts are settled by the guard's approvers. Its file tools have renamed their path parameter across releases
// (`path`, `absolute_path`, `file_path`, `dir_path`), so every spelling is read.
const NO_PATH_TOOLS: ReadonlySet<string> = new Set([
  'web_fetch',
  'google_web_search',
  'save_memory',
  'write_todos',
  'ask_user',
  'activate_skill',
]);

function pathOf(input: Record<string, unknown>, ...keys: string[]): unknown {
  for (const key of keys) if (input[key] !== undefined) return input[key];
  return undefined;
}

/**
 * A subtree call rooted where a glob can reach. `reads`: the tool opens the files (grep, read_many_files ⇒
 * folder-rules' `Grep`, a read subtree); otherwise it matches names only (glob ⇒ `search_files`, a list).
 */
function searchRoot(pattern: unknown, dir: unknown, cwd: string, reads: boolean): MappedCall {
  const tool = reads ? 'Grep' : 'search_files';
  const base = dir ?? cwd;
  if (typeof base !== 'string') return { call: { tool, args: { path: base } } };
  const absBase = isAbsolute(base) ? base : join(cwd, base);
  if (typeof pattern !== 'string') return { call: { tool, args: { path: absBase } } };
  const root = globRoot(pattern, absBase);
  if (root === undefined)
    return { uncertain: `glob pattern ${JSON.stringify(pattern)} climbs with ".." after a wildcard` };
  return { call: { tool, args: { path: root } } };
}

/** The deepest directory every path is under: one subtree read that covers them all. */
function commonRoot(paths: string[]): string {
  const split = paths.map((p) => p.split('/'));
  const first = split[0] ?? [];
  let n = 0;
  while (n < first.length && split.every((s) => s[n] === first[n])) n++;
  return first.slice(0, n).join('/') || '/';
}

export function mapGeminiTool(toolName: string, input: Record<string, unknown>, cwd: string): MappedCall {
  switch (toolName) {
    case 'read_file':
      return {
        call: { tool: 'read_file', args: { path: pathOf(input, 'file_path', 'absolute_path', 'path') } },
      };
    case 'write_file':
      return { call: { tool: 'write_file', args: { path: pathOf(input, 'file_path', 'path') } } };
    case 'replace':
      return { call: { tool: 'edit_file', args: { path: pathOf(input, 'file_path', 'path') } } };
    case 'list_directory':
      return { call: { tool: 'list_directory', args: { path: pathOf(input, 'dir_path', 'path') } } };
    case 'glob':
      return searchRoot(input.pattern, pathOf(input, 'dir_path', 'path'), cwd, false);
    case 'search_file_content':
    case 'grep_search':
      return searchRoot(undefined, pathOf(input, 'dir_path', 'path'), cwd, true);
    case 'read_many_files': {
      const entries = pathOf(input, 'include', 'paths');
      if (!Array.isArray(entries) || entries.length === 0 || entries.some((e) => typeof e !== 'string')) {
        return { call: { tool: 'read_multiple_files', args: { paths: entries } } };
      }
      const roots: string[] = [];
      for (const entry of entries as string[]) {
        const mapped = searchRoot(entry, undefined, cwd, true);
        if ('uncertain' in mapped) return mapped;
        roots.push(String(mapped.call.args.path));
      }
      return { call: { tool: 'Grep', args: { path: commonRoot(roots) } } };
    }
    case 'run_shell_command': {
      const dir = pathOf(input, 'dir_path', 'directory');
      const call = { tool: 'bash', args: { command: input.command } };
      if (dir === undefined) return { call };
      if (typeof dir !== 'string')
        return { uncertain: `run_shell_command directory ${JSON.stringify(dir)} is not a string` };
      return { call, cwd: isAbsolute(dir) ? dir : join(cwd, dir) };
    }
    default:
      return { call: passThroughCall(toolName, input) };
  }
}

function output(decision: 'allow' | 'deny', reason: string): string {
  return `${JSON.stringify({ decision, reason })}\n`;
}

function geminiDeny(envelope: RejectionEnvelope): HookAnswer {
  return { stdout: output('deny', denyReason(envelope)), stderr: '', exitCode: 0 };
}

/**
 * allow ⇒ `{}` (no decision): Gemini CLI's own confirmation and policy engine run as without toolgate, unless
 * the user opted in with `approveAllowed`. Gemini CLI has no "ask": prompts are settled by the guard's
 * approvers before answering (default auto-deny), so a prompt arrives here as allow or deny.
 */
function geminiAnswer(decision: Decision, options: AnswerOptions = {}): HookAnswer {
  if (decision.action === 'allow') {
    if (!options.approveAllowed || decision.accesses.length === 0)
      return { stdout: '{}\n', stderr: '', exitCode: 0 };
    return {
      stdout: output('allow', `toolgate: allowed by policy (${decision.accesses.length} path(s) checked)`),
      stderr: '',
      exitCode: 0,
    };
  }
  if (!decision.envelope) return blockingError(`denied (${decision.reasons[0]?.code ?? 'unknown'})`);
  return geminiDeny(decision.envelope);
}

/** `toolgate hook gemini-cli`: BeforeTool events. */
export const geminiCli: HookHost = {
  name: 'gemini-cli',
  eventName: 'BeforeTool',
  projectDirEnv: 'GEMINI_PROJECT_DIR',
  resolvePrompts: true,
  noPathTools: NO_PATH_TOOLS,
  map: mapGeminiTool,
  answer: geminiAnswer,
  deny: geminiDeny,
};
