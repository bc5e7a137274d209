import { type Access, type CallState, createAccess, type Op, uncertainAccess } from '@toolgate/core';
import { PATH_ARGS } from './toolTable.js';
import type { CompiledPolicy, ToolSpec } from './types.js';

const READ_ENDS = new Set(['source', 'src', 'from', 'old_path']);
const CONTEXT_ARGS = new Set(['cwd', 'working_directory', 'workdir', 'root']);
const DELETE_WORDS = /delete|remove|unlink|rm\b/i;

function opFor(spec: ToolSpec, arg: string): Op {
  if (CONTEXT_ARGS.has(arg)) return 'read';
  if (spec.op === 'copy') return READ_ENDS.has(arg) ? 'read' : 'write';
  if (spec.op === 'read') return 'read';
  if (spec.op === 'list') return 'list';
  return 'write';
}

/**
 * Turns the path-bearing arguments of a file or MCP tool call into accesses. Every path argument is
 * checked; an argument that is present but not a string (or an array of strings) is an uncertain access,
 * never skipped.
 */
export function extractAccesses(
  tool: string,
  args: Record<string, unknown>,
  spec: ToolSpec,
  policy: CompiledPolicy,
  state: CallState,
): Access[] {
  if (spec.op === 'none' || spec.op === 'shell' || spec.op === 'opaque') return [];
  const out: Access[] = [];
  const names = spec.pathArgs ?? PATH_ARGS;
  // Folder Guard resolves relative paths against the workspace root, not the cwd.
  const ctx = policy.relativeTo === 'workspace' ? { ...state.ctx, cwd: state.ctx.workspace } : undefined;
  for (const name of names) {
    if (!Object.hasOwn(args, name)) continue;
    const value = args[name];
    const op = opFor(spec, name);
    const origin = `folder-rules:args.${name}`;
    // Deleting or moving a link acts on the link itself, not on what it points at.
    const onLink =
      (spec.op === 'move' && READ_ENDS.has(name)) || (spec.op === 'write' && DELETE_WORDS.test(tool));
    const scope = spec.subtree && !CONTEXT_ARGS.has(name) ? 'subtree' : 'path';
    const one = (given: unknown, where: string) => {
      // Folder Guard: "Empty string or \".\": Normalized to workspace root" — `""` is the workspace itself.
      const raw = given === '' && policy.relativeTo === 'workspace' ? '.' : given;
      if (typeof raw !== 'string' || raw.length === 0 || raw.includes('\0')) {
        out.push(uncertainAccess(String(raw), op, where, `path argument is not a usable string`));
        return;
      }
      const options = { origin: where, scope, ...(onLink ? { followFinal: false } : {}) } as const;
      out.push(ctx ? createAccess(raw, op, ctx, options) : state.access(raw, op, options));
    };
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) one(v, `${origin}[${i}]`);
    } else if (value !== undefined && value !== null) one(value, origin);
  }
  return out;
}
