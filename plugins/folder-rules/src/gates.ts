import type { Access, CallState, Finding, ToolCall } from '@toolgate/core';
import { uncertainAccess } from '@toolgate/core';
import type { Classification } from './classify.js';
import { scanCode } from './codeLiterals.js';
import { baseToolName } from './toolTable.js';
import type { CompiledPolicy } from './types.js';

/** The code-tool scoping for a tool, by its name or its base name (`mcp__sandbox__code_execution`). */
export function codeToolOf(policy: CompiledPolicy, tool: string) {
  const tools = policy.gates?.codeTools;
  if (!tools) return undefined;
  if (Object.hasOwn(tools, tool)) return tools[tool];
  const base = baseToolName(tool);
  return Object.hasOwn(tools, base) ? tools[base] : undefined;
}

/** A file-tool classification: a known tool whose arguments are paths (not a shell, code or pathless tool). */
function isFileTool(c: Classification): boolean {
  return c.kind === 'known' && !['none', 'shell', 'opaque'].includes(c.spec.op);
}

/**
 * The whole-tool gates of a policy for one call: a disabled tool or vector denies every call of it (Hermes
 * `tools.<t>.enabled: false` — also calls that name no path), a tool that requires approval prompts once
 * (OpenFang `requires_approval`; core folds it with the call's path prompts into one request).
 */
export function gateFinding(tool: string, c: Classification, policy: CompiledPolicy): Finding | undefined {
  const gates = policy.gates;
  if (!gates) return undefined;
  const vector = c.kind === 'shell' ? 'shell' : isFileTool(c) ? 'file' : undefined;
  const base = baseToolName(tool);
  if (
    gates.disabledTools?.includes(tool) ||
    gates.disabledTools?.includes(base) ||
    (vector && gates.disabledVectors?.includes(vector))
  ) {
    return {
      action: 'deny',
      code: 'TOOL_DISABLED',
      reason: `tool ${JSON.stringify(tool)} is disabled by the policy`,
      hint: 'This tool is not available; use another tool or ask the user.',
    };
  }
  const approval = gates.approvalTools;
  if (approval === true || approval?.includes(tool)) {
    return {
      action: 'prompt',
      code: 'TOOL_APPROVAL',
      reason: `tool ${JSON.stringify(tool)} requires approval`,
    };
  }
  return undefined;
}

/**
 * Accesses of a code-running tool scoped by its literals (Hermes `code_execution`): every string literal is
 * a write of that path (the op is unknown: write is the safer guess), judged with the shell vector's rules;
 * code that can reach paths no literal names is one uncertain access (denied), unless the policy opts out.
 */
export function codeAccesses(
  call: ToolCall,
  spec: { arg: string; dynamic: 'deny' | 'allow' },
  state: CallState,
): Access[] {
  const origin = `shell:${call.tool}:literal`;
  const code = call.args[spec.arg];
  if (typeof code !== 'string')
    return [uncertainAccess(String(code), 'write', origin, `argument ${spec.arg} is not a string of code`)];
  const scan = scanCode(code);
  const out: Access[] = [];
  for (const literal of new Set(scan.literals)) {
    if (literal === '' || literal.includes('\0')) continue;
    out.push(state.access(literal, 'write', { origin }));
  }
  if (scan.dynamic !== undefined && spec.dynamic === 'deny')
    out.push(uncertainAccess(call.tool, 'write', origin, `${scan.dynamic}; its paths cannot be audited`));
  return out;
}
