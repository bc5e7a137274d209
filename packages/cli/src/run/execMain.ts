import { execSandboxed } from './execSandboxed.js';

// The exec bundle (dist/hook-bundle/exec.cjs): what bin/toolgate.cjs loads to run a plan the hook server made
// for `toolgate run` — bubblewrap's start, its status pipe and the signals — without the policy engine.

/**
 * Runs a planned bubblewrap command line under the policy's wall-time limit (ms, when it sets one); resolves
 * with the exit code (see execSandboxed).
 */
export function execMain(argv: readonly string[], wallTimeMs?: number): Promise<number> {
  return execSandboxed(argv, wallTimeMs);
}
