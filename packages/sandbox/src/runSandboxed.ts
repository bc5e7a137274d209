import { lazyBuiltin } from '@toolgate/core';
import { childPids } from './childPids.js';
import { type LaunchOptions, launch } from './launch.js';
import { notInstalled } from './probe.js';

/** Signals a terminal or a supervisor sends that the sandboxed command must see (it may trap them). */
const FORWARDED: readonly NodeJS.Signals[] = [
  'SIGINT',
  'SIGTERM',
  'SIGHUP',
  'SIGQUIT',
  'SIGUSR1',
  'SIGUSR2',
  'SIGWINCH',
];

export interface SandboxExit {
  /**
   * Whether the command ran: bubblewrap reported its exit. `false`: bubblewrap could not be started, could not
   * build the sandbox (no user namespaces, a mount it cannot make) or could not execute the command — its own
   * message is on stderr, `reason` says which case — and nothing ran outside the sandbox.
   */
  ran: boolean;
  reason?: string;
  /** The command's exit code, when it exited. */
  code: number | null;
  /** The signal that ended the command (bubblewrap reports it as 128 + N, like a shell). */
  signal: NodeJS.Signals | null;
}

// Only for a command that died of a signal (`toolgate run` starts with as few modules as it can).
const os = lazyBuiltin<typeof import('node:os')>('node:os');

function signalOf(code: number | null): NodeJS.Signals | null {
  if (code === null || code <= 128) return null;
  const n = code - 128;
  const entry = Object.entries(os().constants.signals).find(([, v]) => v === n);
  return entry ? (entry[0] as NodeJS.Signals) : null;
}

/**
 * Runs `bwrap <args> -- <command…>` with this process's stdin, stdout, stderr, environment and cwd, and
 * resolves with how the command ended — or with `ran: false` when bubblewrap did not run it. No probe runs
 * first: bubblewrap never runs a command outside the namespaces it was asked for, and its status report tells
 * a sandbox that could not be built from a command that failed. Signals sent to this process are forwarded to the command itself
 * (bubblewrap gets none: it runs in its own process group, and its `--new-session` keeps the command off the
 * caller's terminal), so a command that traps SIGTERM still gets to clean up.
 *
 * @example
 * ```ts
 * const exit = await runSandboxed('bwrap', [...bwrapArgs(plan), 'make', 'test']);
 * if (!exit.ran) console.error(exit.reason); // nothing ran, confined or not
 * process.exitCode = exit.code ?? 1;
 * ```
 */
export function runSandboxed(
  bwrap: string,
  args: readonly string[],
  options: { via?: LaunchOptions['via'] } = {},
): Promise<SandboxExit> {
  return new Promise((resolve) => {
    // --json-status-fd: bubblewrap writes {"child-pid": N} to fd 3 once it has cloned the sandbox's init —
    // the pid (as this process sees it) of a process that ignores signals it has no handler for (it is pid 1
    // of its namespace); the command is its child, and signals go to it — and {"exit-code": N} only when the
    // command ran and exited. No exit record: the sandbox or the command's exec failed (bubblewrap 0.8:
    // measured with a missing bind source, a missing program and an unknown option).
    let ended = false;
    const initPid = () => {
      const m = /"child-pid"\s*:\s*(\d+)/.exec(child.status());
      return m ? Number(m[1]) : undefined;
    };
    const forward = (sig: NodeJS.Signals, attempt = 0) => {
      if (ended) return;
      const init = initPid();
      // Before bubblewrap reports its init, and between that and the init forking the command, there is no
      // process to signal yet: try again shortly (the signal is not lost, the command is about to start).
      const pids = init === undefined ? [] : childPids(init);
      if (pids.length === 0 && attempt < 100) {
        setTimeout(() => forward(sig, attempt + 1), 10);
        return;
      }
      for (const pid of pids)
        try {
          process.kill(pid, sig);
        } catch {
          /* the command has exited already */
        }
    };
    const onSignal = (sig: NodeJS.Signals) => forward(sig);
    for (const sig of FORWARDED) process.on(sig, onSignal);
    const done = (exit: SandboxExit) => {
      ended = true;
      for (const sig of FORWARDED) process.off(sig, onSignal);
      resolve(exit);
    };
    const child = launch(bwrap, ['--json-status-fd', '3', ...args], {
      ...(options.via ? { via: options.via } : {}),
      onError: (code) =>
        done({
          ran: false,
          reason: code === 'ENOENT' ? notInstalled(bwrap) : `${bwrap} could not run: ${code}`,
          code: null,
          signal: null,
        }),
      onExit: (code, signal) => {
        const exitReported = /"exit-code"\s*:/.test(child.status());
        if (signal) done({ ran: exitReported, code: null, signal });
        else if (!exitReported)
          done({
            ran: false,
            reason: `${bwrap} did not run the command (exit ${code}): the sandbox could not be set up or the command could not be executed`,
            code,
            signal: null,
          });
        else {
          const sig = signalOf(code);
          done(sig ? { ran: true, code: null, signal: sig } : { ran: true, code, signal: null });
        }
      },
    });
  });
}
