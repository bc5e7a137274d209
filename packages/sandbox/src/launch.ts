import { readSync } from 'node:fs';
import { lazyBuiltin } from '@toolgate/core';

// Starting bubblewrap from `toolgate run`, a process that lives only to start it: node:child_process loads
// node:net and the stream modules (~3.5 ms of a ~20 ms Node start, measured), and a stream for the status pipe
// costs more. libuv's process and pipe handles — what child_process itself drives — do the same work without
// them. Where they are not offered (a Node that dropped `process.binding`, or `--pending-deprecation`, which
// would print a warning), node:child_process does it.

const childProcess = lazyBuiltin<typeof import('node:child_process')>('node:child_process');
const util = lazyBuiltin<typeof import('node:util')>('node:util');

/** A program started with this process's stdin, stdout, stderr, cwd and environment, and a pipe as its fd 3. */
export interface Launched {
  /** Undefined when it could not be started (`onError` follows). */
  readonly pid: number | undefined;
  /** All the program wrote to its fd 3 until now, read without waiting. */
  status(): string;
}

export interface LaunchOptions {
  /** Called once, when the program has ended: its exit code, or the signal that ended it. */
  onExit(code: number | null, signal: NodeJS.Signals | null): void;
  /** Called once, asynchronously, instead of `onExit` when it could not be started: the errno code. */
  onError(code: string): void;
  /** `child_process` forces Node's module (tests run both ways); default: the handles when offered. */
  via?: 'handles' | 'child_process';
}

interface ProcessHandle {
  pid: number | undefined;
  onexit: (code: number, signal: string) => void;
  spawn(options: object): number;
  close(): void;
}
interface PipeHandle {
  readonly fd: number;
  close(): void;
}
interface Handles {
  Process: new () => ProcessHandle;
  Pipe: new (type: number) => PipeHandle;
  socket: number;
}

let handles: Handles | null | undefined;

function libuvHandles(): Handles | null {
  if (handles !== undefined) return handles;
  handles = null;
  const binding = (process as unknown as { binding?: (name: string) => Record<string, unknown> }).binding;
  const pending =
    process.execArgv.includes('--pending-deprecation') ||
    /(^|\s)--pending-deprecation\b/.test(process.env.NODE_OPTIONS ?? '');
  if (typeof binding !== 'function' || pending) return handles;
  try {
    const { Process } = binding('process_wrap') as { Process?: Handles['Process'] };
    const { Pipe, constants } = binding('pipe_wrap') as {
      Pipe?: Handles['Pipe'];
      constants?: { SOCKET?: number };
    };
    if (typeof Process === 'function' && typeof Pipe === 'function' && typeof constants?.SOCKET === 'number')
      handles = { Process, Pipe, socket: constants.SOCKET };
  } catch {
    /* not offered: child_process */
  }
  return handles;
}

/**
 * Starts `file` (searched on PATH like execvp) with `args`, in a session of its own (`setsid`: its own process
 * group, off the caller's terminal's signals), fds 0–2 this process's, fd 3 the write end of a pipe whose
 * contents `status()` returns.
 */
export function launch(file: string, args: readonly string[], options: LaunchOptions): Launched {
  const h = options.via === 'child_process' ? null : libuvHandles();
  return h ? launchWithHandles(h, file, args, options) : launchWithChildProcess(file, args, options);
}

function launchWithHandles(
  h: Handles,
  file: string,
  args: readonly string[],
  options: LaunchOptions,
): Launched {
  const pipe = new h.Pipe(h.socket);
  const proc = new h.Process();
  let text = '';
  let open = true;
  const buffer = Buffer.allocUnsafe(4096);
  const drain = () => {
    // libuv made the pipe non-blocking: read what is there, stop at EAGAIN (throws) or end of file. Once
    // closed, there is nothing more (a read of the closed fd would throw, and a thrown error costs ~0.5 ms).
    while (open) {
      let n: number;
      try {
        n = readSync(pipe.fd, buffer, 0, buffer.length, null);
      } catch {
        return;
      }
      if (n === 0) return;
      text += buffer.toString('utf8', 0, n);
    }
  };
  proc.onexit = (code, signal) => {
    drain(); // what the program wrote before it exited is in the pipe now
    open = false;
    proc.close();
    pipe.close();
    options.onExit(signal ? null : code, signal ? (signal as NodeJS.Signals) : null);
  };
  const envPairs: string[] = [];
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) envPairs.push(`${k}=${v}`);
  const err = proc.spawn({
    file,
    args: [file, ...args],
    cwd: process.cwd(),
    envPairs,
    stdio: [
      { type: 'fd', fd: 0 },
      { type: 'fd', fd: 1 },
      { type: 'fd', fd: 2 },
      { type: 'pipe', handle: pipe },
    ],
    detached: true,
    windowsHide: false,
    windowsVerbatimArguments: false,
  });
  if (err !== 0 || proc.pid === undefined) {
    open = false;
    proc.close();
    pipe.close();
    const code = err !== 0 ? util().getSystemErrorName(err) : 'EINVAL';
    process.nextTick(() => options.onError(code));
    return { pid: undefined, status: () => '' };
  }
  return {
    pid: proc.pid,
    status: () => {
      drain();
      return text;
    },
  };
}

function launchWithChildProcess(file: string, args: readonly string[], options: LaunchOptions): Launched {
  const child = childProcess().spawn(file, [...args], {
    stdio: ['inherit', 'inherit', 'inherit', 'pipe'],
    detached: true,
  });
  let text = '';
  let failed = false;
  const pipe = child.stdio[3] as NodeJS.ReadableStream | null;
  pipe?.setEncoding('utf8');
  pipe?.on('data', (chunk: string) => {
    text += chunk;
  });
  pipe?.on('error', () => {});
  child.on('error', (error) => {
    failed = true;
    options.onError((error as NodeJS.ErrnoException).code ?? 'EINVAL');
  });
  // 'close': the pipe has been read to its end (after 'error' when the program could not be started).
  child.on('close', (code, signal) => {
    if (!failed) options.onExit(code, signal);
  });
  return { pid: child.pid, status: () => text };
}
