import { KILL_AFTER_MS, runSandboxed, WALL_TIME_EXIT } from '@toolgate/sandbox';
import { UsageError } from '../exitCodes.js';
import { writeOut } from '../hook/writeOut.js';

/** The sandbox could not start (bubblewrap missing, no user namespaces, policy not compilable): like env(1)'s 125. */
export const SANDBOX_FAILED = 125;

/** The program is not there inside the sandbox: a shell's "command not found". */
export const COMMAND_NOT_FOUND = 127;

/**
 * After bubblewrap ran nothing: whether the reason is the program, not the sandbox. The same sandbox (the
 * options before `--`) runs `sh -c 'command -v PROGRAM'`: it starts and the program is not found ⇒ the
 * program is not visible inside (not on the PATH there, under a path the policy hides, or not mounted).
 * Only on this failure path, so a run that starts pays nothing for it.
 */
async function programMissing(bwrap: string, args: readonly string[]): Promise<string | undefined> {
  const sep = args.indexOf('--');
  const program = sep < 0 ? undefined : args[sep + 1];
  if (program === undefined) return undefined;
  const probe = await runSandboxed(bwrap, [
    ...args.slice(0, sep + 1),
    '/bin/sh',
    '-c',
    'command -v -- "$0" >/dev/null 2>&1',
    program,
  ]);
  return probe.ran && probe.code !== 0 ? program : undefined;
}

/** `10m`, `90s`, `1500ms`: a wall-time limit as the policy writes it. */
function duration(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

/**
 * Runs a planned bubblewrap command line (`bwrap …args -- CMD…`) with this process's stdio, cwd and
 * environment; resolves with the command's exit code, or ends this process by the signal that ended the
 * command. No probe first (it cost a second bubblewrap start): bubblewrap itself refuses to run the command
 * outside the sandbox, and runSandboxed tells its refusal (exit 125, its reason on stderr) from the command's
 * own exit.
 *
 * `wallTimeMs` (the policy's `limits.wallTime`): timeout(1) inside the sandbox ends the command at the
 * deadline (TERM, then KILL after KILL_AFTER_MS); a command so ended makes this process say so on stderr and
 * exit WALL_TIME_EXIT (124). Should the inner timer not fire (the command stopped it: it runs as the same
 * uid in the sandbox), this process ends itself a second after the KILL was due — bubblewrap dies with it
 * (`--die-with-parent`), and the sandbox with bubblewrap.
 */
export async function execSandboxed(argv: readonly string[], wallTimeMs?: number): Promise<number> {
  const [bwrap, ...args] = argv;
  if (bwrap === undefined) throw new UsageError('run: no bubblewrap command line to run');
  const started = Date.now();
  const ended = () =>
    `toolgate run: the command was ended by the wall-time limit of the policy (limits.wallTime: ${duration(wallTimeMs ?? 0)}); exit ${WALL_TIME_EXIT}\n`;
  const overdue =
    wallTimeMs === undefined
      ? undefined
      : setTimeout(
          () => {
            writeOut(2, ended());
            process.exit(WALL_TIME_EXIT);
          },
          wallTimeMs + KILL_AFTER_MS + 1000,
        );
  const exit = await runSandboxed(bwrap, args);
  clearTimeout(overdue);
  if (!exit.ran && !exit.signal) {
    const missing = await programMissing(bwrap, args);
    if (missing !== undefined) {
      writeOut(
        2,
        `toolgate run: ${missing}: command not found inside the sandbox (not on its PATH, or under a path the policy denies or the sandbox does not mount); exit ${COMMAND_NOT_FOUND}\n`,
      );
      return COMMAND_NOT_FOUND;
    }
    writeOut(2, `toolgate run: the command did not run: ${exit.reason}\n`);
    return SANDBOX_FAILED;
  }
  const limited =
    wallTimeMs !== undefined &&
    Date.now() - started >= wallTimeMs &&
    (exit.code === WALL_TIME_EXIT || exit.signal === 'SIGKILL' || exit.signal === 'SIGTERM');
  if (limited) {
    writeOut(2, ended());
    return WALL_TIME_EXIT;
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
