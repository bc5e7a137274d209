import { describeValue, ToolgateError } from '@toolgate/core';
import type { Metacharacters, UnknownCommands } from './effects/extractTypes.js';

/** Where a shell tool keeps its command and (optionally) its working directory. */
export interface ShellToolSpec {
  commandArg: string;
  /** Argument(s) naming the working directory; the first present one is used. */
  cwdArg?: string | readonly string[];
}

export interface ShellOptions {
  /**
   * Tools that run shell commands, merged over the defaults (`shell_execute`, `execute_shell_command`,
   * `terminal`, `shell_exec`, `run_command`, `Bash`, `bash`, all with `command`). `false` removes a default.
   */
  tools?: Readonly<Record<string, ShellToolSpec | false>>;
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
  tools: ReadonlyMap<string, { commandArg: string; cwdArgs: readonly string[] }>;
  unknownCommands: UnknownCommands;
  metacharacters: Metacharacters;
  maxDepth: number;
  budget: number;
}

const DEFAULT_CWD = ['cwd', 'working_directory', 'workdir'];
export const DEFAULT_TOOLS: Readonly<Record<string, ShellToolSpec>> = {
  shell_execute: { commandArg: 'command' },
  execute_shell_command: { commandArg: 'command' },
  terminal: { commandArg: 'command' },
  shell_exec: { commandArg: 'command' },
  run_command: { commandArg: 'command' },
  Bash: { commandArg: 'command' },
  bash: { commandArg: 'command' },
};

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
  const known = new Set(['tools', 'unknownCommands', 'metacharacters', 'maxDepth', 'budget']);
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
    fail('tools', given, 'an object mapping tool names to { commandArg, cwdArg? }');
  const tools = new Map<string, { commandArg: string; cwdArgs: readonly string[] }>();
  for (const [name, spec] of Object.entries({ ...DEFAULT_TOOLS, ...given })) {
    if (spec === false) continue;
    if (
      spec === null ||
      typeof spec !== 'object' ||
      typeof spec.commandArg !== 'string' ||
      spec.commandArg === ''
    ) {
      fail(`tools.${name}`, spec, '{ commandArg: string, cwdArg?: string | string[] } or false');
    }
    const cwd =
      spec.cwdArg === undefined ? DEFAULT_CWD : typeof spec.cwdArg === 'string' ? [spec.cwdArg] : spec.cwdArg;
    if (!Array.isArray(cwd) || cwd.some((c) => typeof c !== 'string' || c === ''))
      fail(`tools.${name}.cwdArg`, spec.cwdArg, 'a non-empty string or an array of them');
    tools.set(name, { commandArg: spec.commandArg, cwdArgs: cwd });
  }
  return { tools, unknownCommands, metacharacters, maxDepth, budget };
}
