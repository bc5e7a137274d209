import type { Op, ToolCall } from '@toolgate/core';
import { compileSelector, type Selector } from './selectors.js';
import {
  BUILTIN_TOOLS,
  baseToolName,
  COMMAND_KEYS,
  looksReadOnly,
  NOT_SHELL_TOOLS,
  SHELL_TOOLS,
} from './toolTable.js';
import type { ToolSpec } from './types.js';

/** Where a tool's classification comes from: the policy, the built-in table, or the server's own schema. */
export type SpecSource = 'policy' | 'builtin' | 'schema';

/** A declared path selector with its op (`undefined`: the tool's). */
export interface DeclaredPath {
  selector: Selector;
  op?: Op;
}

/** A tool's classification, computed once per tool name (and schema), never per call. */
export type ToolPlan =
  | { kind: 'shell' }
  | { kind: 'known'; spec: ToolSpec; source: SpecSource; declared: readonly DeclaredPath[] }
  /** Undeclared: a call carrying a command is a shell call, any other is an unknown tool. */
  | { kind: 'undeclared'; spec: ToolSpec; maybeShell: boolean };

export type Classification =
  | { kind: 'shell' }
  | { kind: 'known'; spec: ToolSpec; source: SpecSource; declared: readonly DeclaredPath[] }
  | { kind: 'unknown'; spec: ToolSpec };

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

/** `pathArgs` and `paths` of a spec as compiled selectors (validated at load: a bad one is skipped here). */
export function declaredPaths(spec: ToolSpec): DeclaredPath[] {
  const out: DeclaredPath[] = [];
  for (const name of spec.pathArgs ?? [])
    out.push({ selector: { text: name, steps: [{ key: name, each: false }] } });
  for (const d of spec.paths ?? []) {
    const text = typeof d === 'string' ? d : d.arg;
    const selector = compileSelector(text);
    if (selector) out.push({ selector, ...(typeof d === 'object' && d.op ? { op: d.op } : {}) });
  }
  return out;
}

/**
 * The plan of one tool by name: the user's table first, then the built-in one; what a server says about
 * itself (annotations are hints, not guarantees) only fills in for tools neither knows, so a server cannot
 * relabel `write_file` nor turn a shell tool into a pathless one (`start_process` has no path argument).
 */
export function planTool(
  name: string,
  tools: Readonly<Record<string, ToolSpec>>,
  learned: LearnedTools,
  notShell: readonly string[] = [],
): ToolPlan {
  const base = baseToolName(name);
  const fromPolicy = tools[name] ?? tools[base];
  const declared = fromPolicy ?? BUILTIN_TOOLS[name] ?? BUILTIN_TOOLS[base];
  const safe =
    NOT_SHELL_TOOLS.has(name) ||
    NOT_SHELL_TOOLS.has(base) ||
    notShell.includes(name) ||
    notShell.includes(base);
  if (declared?.op === 'shell') return { kind: 'shell' };
  // A known shell tool: the shell plugin analyses it, or it is denied. `notShell` (the policy's
  // `shell.notShell`) says a tool's command-like argument is not one.
  if (declared === undefined && !safe && (SHELL_TOOLS.has(name) || SHELL_TOOLS.has(base)))
    return { kind: 'shell' };
  if (declared)
    return {
      kind: 'known',
      spec: declared,
      source: fromPolicy ? 'policy' : 'builtin',
      declared: declaredPaths(declared),
    };
  const spec = learned.get(name) ?? learned.get(base);
  if (spec) return { kind: 'known', spec, source: 'schema', declared: declaredPaths(spec) };
  // Seed 001: "Default: Write (safer to assume write when uncertain)" — only a read-like name reads.
  return { kind: 'undeclared', spec: { op: looksReadOnly(base) ? 'read' : 'write' }, maybeShell: !safe };
}

/** A call's classification from its tool's plan: only an undeclared tool's command argument is per call. */
export function classifyWith(plan: ToolPlan, call: ToolCall): Classification {
  if (plan.kind !== 'undeclared') return plan;
  if (plan.maybeShell && carriesCommand(call.args)) return { kind: 'shell' };
  return { kind: 'unknown', spec: plan.spec };
}

/** Classifies one call (uncached: `toolPlans` caches the plan per tool for the hot path). */
export function classify(
  call: ToolCall,
  tools: Readonly<Record<string, ToolSpec>>,
  learned: LearnedTools,
  notShell: readonly string[] = [],
): Classification {
  return classifyWith(planTool(call.tool, tools, learned, notShell), call);
}

/**
 * A cache of tool plans per tool name, cleared when a server's tool list teaches something new. Bounded:
 * names an agent invents cannot grow it without end (past the bound a plan is computed per call).
 */
export function toolPlans(
  tools: Readonly<Record<string, ToolSpec>>,
  learned: LearnedTools,
  notShell: readonly string[] = [],
) {
  const plans = new Map<string, ToolPlan>();
  return {
    get(name: string): ToolPlan {
      let plan = plans.get(name);
      if (plan === undefined) {
        plan = planTool(name, tools, learned, notShell);
        if (plans.size < 2048) plans.set(name, plan);
      }
      return plan;
    },
    learn(name: string, spec: ToolSpec): void {
      if (learned.has(name)) return;
      learned.set(name, spec);
      plans.delete(name);
      plans.clear();
    },
  };
}
