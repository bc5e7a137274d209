import { constants, fstatSync, openSync } from 'node:fs';
import { HOOK_HOSTS } from '../integrations/hookHostNames.js';
import { type HookCommandOptions, runHookCommand } from '../integrations/runHookCommand.js';
import { fdChunks } from './fdChunks.js';
import { blockingError, type HookAnswer } from './hookHost.js';
import { writeOut } from './writeOut.js';

// `toolgate hook …` without the command-line framework: an assistant starts this process before every tool
// call, so it parses its few flags itself (commander and every other command's code stay unloaded). The flags
// and their meaning are those `toolgate hook --help` lists (commands/hook.ts); a change there is a change here.
const VALUE_FLAGS: Record<string, keyof HookCommandOptions> = {
  '--dialect': 'dialect',
  '--policy': 'policy',
  '--workspace': 'workspace',
  '--audit': 'audit',
  '--approvals': 'approvals',
};

const LIST_FLAGS: Record<string, 'webhook' | 'allowPath'> = {
  '--webhook': 'webhook',
  '-P': 'allowPath',
  '--allow-path': 'allowPath',
};

export function parseHookArgs(
  argv: readonly string[],
): { assistant: string; options: HookCommandOptions } | string {
  const options: HookCommandOptions = {};
  let assistant: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    if (name === '--approve-allowed' && eq < 0) options.approveAllowed = true;
    else if (name === '--audit-required' && eq < 0) options.auditRequired = true;
    else if (name === '--no-dialect-audit' && eq < 0) options.dialectAudit = false;
    else if (name === '--wild' && eq < 0) options.wild = true;
    else if (name in LIST_FLAGS) {
      // Variadic as commander reads them: the value(s) up to the next option.
      const key = LIST_FLAGS[name]!;
      const values = (options[key] as string[] | undefined) ?? [];
      if (eq > 0) values.push(arg.slice(eq + 1));
      else while (argv[i + 1] !== undefined && !argv[i + 1]!.startsWith('-')) values.push(argv[++i]!);
      if (values.length === 0) return `option ${name} needs a value`;
      (options as Record<string, unknown>)[key] = values;
    } else if (name in VALUE_FLAGS) {
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined) return `option ${name} needs a value`;
      (options as Record<string, unknown>)[VALUE_FLAGS[name]!] = value;
    } else if (arg.startsWith('-')) return `unknown option ${JSON.stringify(arg)} (see toolgate hook --help)`;
    else if (assistant === undefined) assistant = arg;
    else return `unexpected argument ${JSON.stringify(arg)}`;
  }
  if (assistant === undefined) return `missing <assistant>: one of ${HOOK_HOSTS.join(', ')}`;
  return { assistant, options };
}

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

/** Runs one hook call from argv (after `hook`); prints the answer and resolves with the exit code. */
export async function hookMain(argv: readonly string[]): Promise<number> {
  const parsed = parseHookArgs(argv);
  // The event is read from fd 0 without process.stdin (its getter loads the tty and stream modules).
  const stdin = await stdinSource();
  const answer: HookAnswer =
    typeof parsed === 'string'
      ? blockingError(parsed)
      : await runHookCommand(parsed.assistant, parsed.options, stdin);
  writeOut(1, answer.stdout);
  writeOut(2, answer.stderr);
  return answer.exitCode;
}
