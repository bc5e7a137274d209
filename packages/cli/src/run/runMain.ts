import { isToolgateError } from '@toolgate/core';
import { UsageError } from '../exitCodes.js';
import { writeOut } from '../hook/writeOut.js';
import { execPlan, planSandboxCommand, type SandboxPlan } from '../integrations/runSandboxCommand.js';
import { parseRunArgs } from './parseRunArgs.js';

// `toolgate run -- CMD…` without the command-line framework and the other commands: what starts before the
// sandboxed command is Node, this file's bundle (scripts/bundle-hook.mjs), the cached policy and the mounts.
// With a hook server running, bin/toolgate.cjs asks it for the plan (`planRun`, in the server's warm process
// with the caller's environment and cwd) and runs it with the small exec bundle (`execMain`).

/**
 * Runs `toolgate run` from argv (after `run`) and resolves with the exit code, or with `undefined` when the
 * arguments are not in the plain form `parseRunArgs` reads: the full CLI then runs them.
 */
export async function runMain(argv: readonly string[]): Promise<number | undefined> {
  const plan = await planRun(argv);
  if (plan === undefined) return undefined;
  if ('argv' in plan) return execPlan(plan);
  writeOut(1, plan.stdout);
  writeOut(2, plan.stderr);
  return plan.exitCode;
}

/**
 * The plan of `toolgate run` for argv (after `run`) in this process's environment and cwd; usage and
 * configuration errors as main() reports them (one line, exit 2). `undefined`: not the plain form.
 */
export async function planRun(argv: readonly string[]): Promise<SandboxPlan | undefined> {
  const parsed = parseRunArgs(argv);
  if (parsed === undefined) return undefined;
  try {
    return await planSandboxCommand(parsed.command, parsed.options);
  } catch (error) {
    // As main() reports them: a usage or configuration error in one line, anything else with its stack.
    if (error instanceof UsageError || isToolgateError(error))
      return { exitCode: 2, stdout: '', stderr: `toolgate: ${error.message}\n` };
    throw error;
  }
}
