import { constants, fstatSync, openSync } from 'node:fs';
import { runHookCommand } from '../integrations/runHookCommand.js';
import { fdChunks } from './fdChunks.js';
import { parseHookArgs } from './hookArgs.js';
import { blockingError, type HookAnswer } from './hookHost.js';
import { writeOut } from './writeOut.js';

export { parseHookArgs } from './hookArgs.js';
export { hookServer } from './hookServer.js';

/**
 * Stdin, read so that an answer can always end the process. A blocking read of a stdin nobody closes would
 * sit in libuv's thread pool and the process could not exit even after it answered (the stdin timeout's
 * deny): a pipe is opened anew without blocking (`/proc/self/fd/0`, O_NONBLOCK; fdChunks polls on EAGAIN);
 * a socket (what a Node host's `stdio: 'pipe'` is) is made non-blocking as net.Socket would (else read
 * through net.Socket); a file or /dev/null is read directly.
 */
async function stdinSource(): Promise<AsyncIterable<Buffer> | NodeJS.ReadableStream> {
  let st: ReturnType<typeof fstatSync> | undefined;
  try {
    st = fstatSync(0);
  } catch {
    return fdChunks(0);
  }
  if (st.isFIFO()) {
    try {
      return fdChunks(
        openSync('/proc/self/fd/0', constants.O_RDONLY | constants.O_NONBLOCK),
        undefined,
        true,
      );
    } catch {
      return fdChunks(0);
    }
  }
  if (st.isSocket()) {
    if (nonBlocking(0)) return fdChunks(0, undefined, true);
    const { Socket } = await import('node:net');
    return new Socket({ fd: 0, readable: true, writable: false });
  }
  return fdChunks(0, undefined, st.isFile());
}

/** Handles that made a descriptor non-blocking: closing one would close the descriptor. */
const openPipes: unknown[] = [];

/**
 * Puts a socket descriptor in non-blocking mode the way net.Socket({fd}) does — libuv's uv_pipe_open, through
 * the pipe binding — without loading node:net and the stream modules (they were a quarter of a hook call's
 * own time). `process.binding` is deprecated but kept for this binding; where it is gone or refuses, false:
 * the caller then reads through net.Socket as before.
 */
function nonBlocking(fd: number): boolean {
  try {
    const binding = (process as unknown as { binding(name: string): PipeBinding }).binding('pipe_wrap');
    const pipe = new binding.Pipe(binding.constants.SOCKET);
    if (pipe.open(fd) !== 0) return false;
    openPipes.push(pipe);
    return true;
  } catch {
    return false;
  }
}

interface PipeBinding {
  Pipe: new (type: number) => { open(fd: number): number };
  constants: { SOCKET: number };
}

/**
 * Runs one hook call from argv (after `hook`); prints the answer and resolves with the exit code. `stdin`:
 * the event's bytes when the caller has read (some of) them already — bin/toolgate.cjs after the hook server
 * could not answer; otherwise fd 0 is read here.
 */
export async function hookMain(argv: readonly string[], stdin?: AsyncIterable<Buffer>): Promise<number> {
  const parsed = parseHookArgs(argv);
  // The event is read from fd 0 without process.stdin (its getter loads the tty and stream modules).
  const source = stdin ?? (await stdinSource());
  const answer: HookAnswer =
    typeof parsed === 'string'
      ? blockingError(parsed)
      : await runHookCommand(parsed.assistant, parsed.options, source);
  writeOut(1, answer.stdout);
  writeOut(2, answer.stderr);
  return answer.exitCode;
}
