import type { ToolCall, ToolDescriptor } from '@toolgate/core';
import {
  BUILTIN_TOOLS,
  baseToolName,
  COMMAND_KEYS,
  looksReadOnly,
  NOT_SHELL_TOOLS,
  PATH_ARGS,
  SHELL_TOOLS,
} from './toolTable.js';
import type { ToolSpec } from './types.js';

export type Classification =
  | { kind: 'shell' }
  | { kind: 'known'; spec: ToolSpec }
  | { kind: 'unknown'; spec: ToolSpec };

const PATHISH_KEY = /path|file|dir|folder|dest|source|target/i;

/** Tool specs learned from MCP annotations and input schemas (`describeTools`). */
export type LearnedTools = Map<string, ToolSpec>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A command-like argument that could hold a command (top level, or one level down: `action.command`). */
export function carriesCommand(args: Record<string, unknown>, depth = 0): boolean {
  for (const [key, value] of Object.entries(args)) {
    if (value === null || value === undefined || typeof value === 'number' || typeof value === 'boolean')
      continue;
    if (isPlainObject(value)) {
      if (depth === 0 && carriesCommand(value, 1)) return true;
    } else if (COMMAND_KEYS.has(key.toLowerCase().replace(/[^a-z0-9]/g, ''))) return true;
  }
  return false;
}

export function classify(
  call: ToolCall,
  tools: Readonly<Record<string, ToolSpec>>,
  learned: LearnedTools,
  notShell: readonly string[] = [],
): Classification {
  const name = call.tool;
  const base = baseToolName(name);
  // The user's table first, then the built-in one; what a server says about itself (annotations are
  // hints, not guarantees) only fills in for tools neither knows, so a server cannot relabel `write_file`
  // nor turn a shell tool into a pathless one (`start_process` has no path argument in its schema).
  const declared = tools[name] ?? tools[base] ?? BUILTIN_TOOLS[name] ?? BUILTIN_TOOLS[base];
  const safe =
    NOT_SHELL_TOOLS.has(name) ||
    NOT_SHELL_TOOLS.has(base) ||
    notShell.includes(name) ||
    notShell.includes(base);
  if (declared?.op === 'shell') return { kind: 'shell' };
  // A known shell tool, or an undeclared tool that carries a command: the shell plugin analyses it, or it is
  // denied. `notShell` (the policy's `shell.notShell`) says a tool's command-like argument is not one.
  if (
    declared === undefined &&
    !safe &&
    (SHELL_TOOLS.has(name) || SHELL_TOOLS.has(base) || carriesCommand(call.args))
  )
    return { kind: 'shell' };
  const spec = declared ?? learned.get(name);
  if (spec) return { kind: 'known', spec };
  // Unknown tool: every argument that looks like a path is a path; a write-like name makes them writes.
  const pathArgs = Object.keys(call.args).filter((k) => {
    const v = call.args[k];
    if (PATH_ARGS.includes(k) || PATHISH_KEY.test(k)) return true;
    return (
      typeof v === 'string' &&
      (v.startsWith('/') || v.startsWith('~') || v.startsWith('./') || v.startsWith('../'))
    );
  });
  // Seed 001: "Default: Write (safer to assume write when uncertain)" — only a read-like name reads.
  return { kind: 'unknown', spec: { op: looksReadOnly(base) ? 'read' : 'write', pathArgs } };
}

/** What an MCP tool descriptor says about itself: annotations for the op, its schema for the path arguments. */
export function specFromDescriptor(tool: ToolDescriptor): ToolSpec | undefined {
  const ann = tool.annotations;
  const schema = tool.inputSchema as { properties?: Record<string, unknown> } | undefined;
  const props =
    schema && typeof schema === 'object' && schema.properties ? Object.keys(schema.properties) : [];
  const pathArgs = props.filter((k) => PATH_ARGS.includes(k) || PATHISH_KEY.test(k));
  if (pathArgs.length === 0) return props.length > 0 ? { op: 'none', pathArgs: [] } : undefined;
  // A tool that says it is read-only is read-only only if it does not also say it is destructive.
  const op = ann?.readOnlyHint === true && ann.destructiveHint !== true ? 'read' : 'write';
  return { op, pathArgs };
}
