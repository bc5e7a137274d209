import { runSandboxed } from '@toolgate/sandbox';
import { UsageError } from '../exitCodes.js';
import { writeOut } from '../hook/writeOut.js';

/** The sandbox could not start (bubblewrap missing, no user namespaces, policy not compilable): like env(1)'s 125. */
export const SANDBOX_FAILED = 125;

/**
 * Runs a planned bubblewrap command line (`bwrap …args -- CMD…`) with this process's stdio, cwd and
 * environment; resolves with the command's exit code, or ends this process by the signal that ended the
 * command. No probe first (it cost a second bubblewrap start): bubblewrap itself refuses to run the command
 * outside the sandbox, and runSandboxed tells its refusal (exit 125, its reason on stderr) from the command's
 * own exit.
 */
export async function execSandboxed(argv: readonly string[]): Promise<number> {
  const [bwrap, ...args] = argv;
  if (bwrap === undefined) throw new UsageError('run: no bubblewrap command line to run');
  const exit = await runSandboxed(bwrap, args);
  if (!exit.ran && !exit.signal) {
    writeOut(2, `toolgate run: the command did not run: ${exit.reason}\n`);
    return SANDBOX_FAILED;
  }
  if (exit.signal) {
    // End the way the command ended, so a supervisor sees the signal, not a number.
    process.removeAllListeners(exit.signal);
    process.kill(process.pid, exit.signal);
    await new Promise((r) => setTimeout(r, 1000));
    return 128;
  }
  return exit.code ?? 1;
}
