import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { childPids } from './childPids.js';

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
    // --info-fd: bubblewrap writes {"child-pid": N} to fd 3: the pid (as this process sees it) of the
    // sandbox's init, which ignores signals it has no handler for (it is pid 1 of its namespace). The
    // command is that init's child: signals go to it.
    const child = spawn(bwrap, ['--info-fd', '3', ...args], {
      stdio: ['inherit', 'inherit', 'inherit', 'pipe'],
      detached: true,
    });
    let info = '';
    let initPid: number | undefined;
    const pending: NodeJS.Signals[] = [];
    const forward = (sig: NodeJS.Signals, attempt = 0) => {
      if (initPid === undefined) {
        pending.push(sig);
        return;
      }
      const pids = childPids(initPid);
      // Between bubblewrap reporting its init and the init forking the command there is no child yet.
      if (pids.length === 0 && attempt < 50 && child.exitCode === null) {
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
    const done = () => {
      for (const sig of FORWARDED) process.off(sig, onSignal);
    };
    const infoPipe = child.stdio[3] as NodeJS.ReadableStream | null;
    infoPipe?.setEncoding('utf8');
    infoPipe?.on('data', (chunk: string) => {
      info += chunk;
      const m = /"child-pid"\s*:\s*(\d+)/.exec(info);
      if (m && initPid === undefined) {
        initPid = Number(m[1]);
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
