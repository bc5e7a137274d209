import type { ToolCall, ToolDescriptor } from '@toolgate/core';
import { BUILTIN_TOOLS, baseToolName, looksReadOnly, PATH_ARGS, SHELL_TOOLS } from './toolTable.js';
import type { ToolSpec } from './types.js';

export type Classification =
  | { kind: 'shell' }
  | { kind: 'known'; spec: ToolSpec }
  | { kind: 'unknown'; spec: ToolSpec };

const PATHISH_KEY = /path|file|dir|folder|dest|source|target/i;

/** Tool specs learned from MCP annotations and input schemas (`describeTools`). */
export type LearnedTools = Map<string, ToolSpec>;

export function classify(
  call: ToolCall,
  tools: Readonly<Record<string, ToolSpec>>,
  learned: LearnedTools,
): Classification {
  const name = call.tool;
  const base = baseToolName(name);
  // The user's table first, then the built-in one; what a server says about itself (annotations are
  // hints, not guarantees) only fills in for tools neither knows, so a server cannot relabel `write_file`.
  const spec = tools[name] ?? tools[base] ?? BUILTIN_TOOLS[name] ?? BUILTIN_TOOLS[base] ?? learned.get(name);
  if (spec?.op === 'shell' || (spec === undefined && (SHELL_TOOLS.has(name) || SHELL_TOOLS.has(base))))
    return { kind: 'shell' };
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
