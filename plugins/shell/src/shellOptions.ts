import { describeValue, ToolgateError } from '@toolgate/core';
import type { Metacharacters, UnknownCommands } from './effects/extractTypes.js';
import { compileToolSpec } from './tools/compileToolSpec.js';
import { KNOWN_NOT_SHELL, KNOWN_TOOLS } from './tools/knownTools.js';
import type { CompiledToolSpec, ShellToolSpec } from './tools/toolSpec.js';

export type { ShellToolSpec } from './tools/toolSpec.js';

export interface ShellOptions {
  /**
   * Tools that run shell commands, merged over the known ones (`KNOWN_TOOLS`: Claude Code `Bash`, Gemini
   * CLI `run_shell_command`, Codex `shell` / `local_shell` / `exec_command`, Cursor `run_terminal_cmd`,
   * Cline and desktop-commander `execute_command`, OpenHands `execute_bash`…). `false` removes one.
   */
  tools?: Readonly<Record<string, ShellToolSpec | false>>;
  /**
   * Tools that carry an argument named like a command (`cmd`, `script`, `command`…) but do not run it on
   * this machine (a database query, a remote container). Every other undeclared tool with such an argument
   * is analysed as shell, or uncertain. Added to the known ones (`KNOWN_NOT_SHELL`: Claude Code
   * `SlashCommand`, `Skill`).
   */
  notShell?: readonly string[];
  /** Commands not in the table: path-like operands are writes (`write`, default), or the call is `prompt`ed or `deny`ed. */
  unknownCommands?: UnknownCommands;
  /** `deny`: any `$()`, backtick, `<()`, `<<<`, `eval`, `source`/`.` denies the call (Hermes' strict mode). */
  metacharacters?: Metacharacters;
  /** Nesting limit for `bash -c`, `eval`, `$(…)` (default 8). */
  maxDepth?: number;
  /** CPU-time budget of one analysis in ms (default 50, at most 10× that in wall time); over it: SHELL_BUDGET. */
  budget?: number;
}

export interface CompiledShellOptions {
  tools: ReadonlyMap<string, CompiledToolSpec>;
  notShell: ReadonlySet<string>;
  unknownCommands: UnknownCommands;
  metacharacters: Metacharacters;
  maxDepth: number;
  budget: number;
}

/** The known tools (kept under this name for callers of earlier releases). */
export const DEFAULT_TOOLS: Readonly<Record<string, ShellToolSpec>> = KNOWN_TOOLS;

function fail(field: string, value: unknown, expected: string): never {
  throw new ToolgateError(
    'TOOLGATE_ERR_INVALID_OPTIONS',
    `shell(): options.${field} must be ${expected}, got ${describeValue(value)}`,
  );
}

/** Validates options once, at construction: bad options throw naming the field and the value. */
export function compileShellOptions(options: ShellOptions | undefined): CompiledShellOptions {
  if (options === undefined) options = {};
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    fail('', options, 'an object');
  const known = new Set(['tools', 'notShell', 'unknownCommands', 'metacharacters', 'maxDepth', 'budget']);
  for (const k of Object.keys(options))
    if (!known.has(k))
      fail(k, (options as Record<string, unknown>)[k], `one of ${[...known].join(', ')} (unknown option)`);
  const unknownCommands = options.unknownCommands ?? 'write';
  if (!['write', 'prompt', 'deny'].includes(unknownCommands))
    fail('unknownCommands', unknownCommands, '"write", "prompt" or "deny"');
  const metacharacters = options.metacharacters ?? 'analyse';
  if (!['analyse', 'deny'].includes(metacharacters))
    fail('metacharacters', metacharacters, '"analyse" or "deny"');
  const maxDepth = options.maxDepth ?? 8;
  if (!Number.isInteger(maxDepth) || maxDepth < 0 || maxDepth > 64)
    fail('maxDepth', maxDepth, 'an integer from 0 to 64');
  const budget = options.budget ?? 50;
  if (typeof budget !== 'number' || !Number.isFinite(budget) || budget <= 0)
    fail('budget', budget, 'a positive number of milliseconds');
  const given = options.tools ?? {};
  if (given === null || typeof given !== 'object' || Array.isArray(given))
    fail('tools', given, 'an object mapping tool names to { commandArg, … } or false');
  const tools = new Map<string, CompiledToolSpec>();
  for (const [name, spec] of Object.entries({ ...KNOWN_TOOLS, ...given })) {
    if (spec === false) continue;
    tools.set(name, compileToolSpec(name, spec, fail));
  }
  const notShell = options.notShell ?? [];
  if (!Array.isArray(notShell) || notShell.some((n) => typeof n !== 'string' || n === ''))
    fail('notShell', notShell, 'a list of tool names');
  for (const name of notShell)
    if (tools.has(name)) fail('notShell', name, 'a tool that is not also a shell tool');
  return {
    tools,
    notShell: new Set([...KNOWN_NOT_SHELL, ...notShell]),
    unknownCommands,
    metacharacters,
    maxDepth,
    budget,
  };
}
