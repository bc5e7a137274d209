import { type CallContext, describeValue, ToolgateError, uncertainAccess } from '@toolgate/core';
import { BudgetExceeded, endBudget, startBudget } from '../lex/budget.js';
import { findMetacharacters } from '../lex/findMetacharacters.js';
import { ShellParseError } from '../lex/parseError.js';
import { parseScript } from '../parse/parseScript.js';
import { Analyser } from './analyse.js';
import type { Extraction, ExtractOptions } from './extractTypes.js';
import { markUnknownContents } from './unknownContents.js';

/** Default time budget of one analysis, in milliseconds. */
export const DEFAULT_BUDGET_MS = 50;

/**
 * Every path a shell command can touch, as core `Access`es, or an honest "unknown": a construct we cannot
 * analyse yields an uncertain access (never an empty list). Pure apart from reading the filesystem to
 * resolve symlinks; paths resolve against `ctx.cwd` and then against wherever `cd` leads.
 *
 * @example
 * ```ts
 * // extractAccesses is exported by the package (@toolgate/shell).
 * const { accesses } = extractAccesses('cd /etc && cat passwd > /tmp/x', ctx);
 * // read /etc (cd), read /etc/passwd, write /tmp/x
 * ```
 */
export function extractAccesses(
  command: string,
  ctx: CallContext,
  options: ExtractOptions = {},
  cwd: string | null = ctx.cwd,
): Extraction {
  if (typeof command !== 'string') {
    throw new ToolgateError(
      'TOOLGATE_ERR_INVALID_OPTIONS',
      `extractAccesses: command must be a string, got ${describeValue(command)}`,
    );
  }
  const analyser = new Analyser(ctx, options, cwd);
  const prefix = options.originPrefix ?? 'shell';
  const budget = options.budget ?? DEFAULT_BUDGET_MS;
  const saved = startBudget(budget);
  let metacharacters: string[] = [];
  try {
    metacharacters = findMetacharacters(command);
    const script = parseScript(command, options.parse ?? 'auto');
    analyser.script(script, 0);
    analyser.checkPipedNames();
  } catch (err) {
    if (err instanceof BudgetExceeded) {
      // Never a hang: what the walk found so far stands, and the rest is one uncertain access.
      analyser.sink.push(
        uncertainAccess(
          command.length > 200 ? `${command.slice(0, 200)}…` : command || '?',
          'write',
          `${prefix}:budget`,
          `SHELL_BUDGET: ${err.message} (${command.length} characters)`,
        ),
        true,
      );
    } else if (!(err instanceof ShellParseError) && !(err instanceof RangeError)) throw err;
    // Fail closed: a command we cannot parse may touch anything.
    else
      analyser.sink.push(
        uncertainAccess(
          command || '?',
          'write',
          `${prefix}:parse`,
          `cannot parse the command: ${err.message}`,
        ),
        true,
      );
  } finally {
    endBudget(saved);
  }
  const { sink } = analyser;
  for (const m of sink.metacharacters) if (!metacharacters.includes(m)) metacharacters.push(m);
  const accesses = sink.accesses;
  markUnknownContents(accesses, sink);
  return {
    accesses,
    uncertain: accesses.some((a) => !a.certain),
    metacharacters,
    unknownCommands: sink.unknown,
    network: sink.network,
  };
}
