import { spawn } from 'node:child_process';
import { constants } from 'node:os';

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
  /** The command's exit code, when it exited. */
  code: number | null;
  /** The signal that ended the command (bubblewrap reports it as 128 + N, like a shell). */
  signal: NodeJS.Signals | null;
}

function signalOf(code: number | null): NodeJS.Signals | null {
  if (code === null || code <= 128) return null;
  const n = code - 128;
  const entry = Object.entries(constants.signals).find(([, v]) => v === n);
  return entry ? (entry[0] as NodeJS.Signals) : null;
}

/**
 * Runs `bwrap <args> -- <command…>` with this process's stdin, stdout, stderr, environment and cwd, and
 * resolves with how the command ended. Signals sent to this process are forwarded to the command itself
 * (bubblewrap gets none: it runs in its own process group, and its `--new-session` keeps the command off the
 * caller's terminal), so a command that traps SIGTERM still gets to clean up.
 *
 * @example
 * ```ts
 * const exit = await runSandboxed('bwrap', [...bwrapArgs(plan), 'make', 'test']);
 * process.exitCode = exit.code ?? 1;
 * ```
 */
export function runSandboxed(bwrap: string, args: readonly string[]): Promise<SandboxExit> {
  return new Promise((resolve, reject) => {
    // --info-fd: bubblewrap writes {"child-pid": N} (the command's pid as this process sees it) to fd 3.
    const child = spawn(bwrap, ['--info-fd', '3', ...args], {
      stdio: ['inherit', 'inherit', 'inherit', 'pipe'],
      detached: true,
    });
    let info = '';
    let commandPid: number | undefined;
    const pending: NodeJS.Signals[] = [];
    const forward = (sig: NodeJS.Signals) => {
      if (commandPid === undefined) pending.push(sig);
      else
        try {
          process.kill(commandPid, sig);
        } catch {
          /* the command has exited already */
        }
    };
    for (const sig of FORWARDED) process.on(sig, forward);
    const done = () => {
      for (const sig of FORWARDED) process.off(sig, forward);
    };
    const infoPipe = child.stdio[3] as NodeJS.ReadableStream | null;
    infoPipe?.setEncoding('utf8');
    infoPipe?.on('data', (chunk: string) => {
      info += chunk;
      const m = /"child-pid"\s*:\s*(\d+)/.exec(info);
      if (m && commandPid === undefined) {
        commandPid = Number(m[1]);
        for (const sig of pending.splice(0)) forward(sig);
      }
    });
    infoPipe?.on('error', () => {});
    child.on('error', (error) => {
      done();
      reject(error);
    });
    child.on('close', (code, signal) => {
      done();
      if (signal) resolve({ code: null, signal });
      else {
        const sig = signalOf(code);
        resolve(sig ? { code: null, signal: sig } : { code, signal: null });
      }
    });
  });
}
