import { ToolgateError } from '@toolgate/core';
import { UsageError } from '../exitCodes.js';
import { writeOut } from '../hook/writeOut.js';
import { runSandboxCommand } from '../integrations/runSandboxCommand.js';
import { parseRunArgs } from './parseRunArgs.js';

// `toolgate run -- CMD…` without the command-line framework and the other commands: what starts before the
// sandboxed command is Node, this file's bundle (scripts/bundle-hook.mjs), the cached policy and the mounts.

/**
 * Runs `toolgate run` from argv (after `run`) and resolves with the exit code, or with `undefined` when the
 * arguments are not in the plain form `parseRunArgs` reads: the full CLI then runs them.
 */
export async function runMain(argv: readonly string[]): Promise<number | undefined> {
  const parsed = parseRunArgs(argv);
  if (parsed === undefined) return undefined;
  try {
    return await runSandboxCommand(parsed.command, parsed.options);
  } catch (error) {
    // As main() reports them: a usage or configuration error in one line, anything else with its stack.
    if (error instanceof UsageError || error instanceof ToolgateError) {
      writeOut(2, `toolgate: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}
