import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  utimesSync,
  watch,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { clearProcessCaches, isProcessAlive } from '@toolgate/core';
import { type HookCommandOptions, runHookCommand } from '../integrations/runHookCommand.js';
import { planRun } from '../run/runMain.js';
import { parseHookArgs } from './hookArgs.js';
import { blockingError, type HookAnswer } from './hookHost.js';

// The hook server: one warm process per user and toolgate build that answers `toolgate hook` calls, so a call
// costs Node's start and a hand-over through a spool directory instead of loading and compiling the policy
// engine and the shell analysis each time (issue 15: a Bash `git status` took ~2× `node -e 0` in-process).
// A spool directory rather than a socket: the client then needs node:fs only (node:net and the stream modules
// under it cost a call ~2 ms, a third of what the server saves).
//
// It must never change a decision. Each request carries what an in-process call reads from its process —
// argv, the whole of stdin, the whole environment, the working directory and the umask — and is answered by
// the same function (`runHookCommand`), one request at a time, with process.env, the cwd and the umask set to
// the caller's. Nothing decided is kept between requests: the guard, its policy (from the on-disk policy
// cache, checked against the files on each call), its plugins and every path resolution are made anew per
// request. What cannot be reproduced here is never served here: the client (bin/toolgate.cjs) runs the call
// itself when it would ask a terminal (`--approvals`) or when stdin is not complete at once (the stdin
// timeout is the caller's), and this server exits after a request that loaded a policy's third-party plugin
// (its module would otherwise stay loaded after the file changed).
//
// The spool (a 0700 directory in the user's toolgate cache, which the starter policies deny writing to):
//   server.pid      the serving process (created exclusively; a newer server never shares the directory);
//                   touched every 2 s, so one left by a server that died is known even if its pid is reused
//   starting        a client is starting a server (so that parallel calls start one, not many)
//   req-<id>        a request: one JSON line ({@link HookRequest}), then stdin's bytes; renamed into place
//   work-<id>       a request the server has taken (renamed from req-, so a client can still withdraw it)
//   res-<id>        the answer ({@link HookReply} as JSON); renamed into place, read and removed by the client

/** One request, as bin/toolgate.cjs writes it. */
export interface HookRequest {
  v: 1;
  /** `run`: plan `toolgate run` (argv after `run`); absent: answer `toolgate hook` (argv after `hook`). */
  command?: 'run';
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  umask: number;
}

/**
 * The answer: the in-process answer, `exec` (for `toolgate run`: the bubblewrap command line the client runs
 * in its own process), or `decline` (the client then runs the call itself).
 */
export type HookReply = HookAnswer | { exec: string[] } | { decline: string };

/** How long an idle server lives (ms); `TOOLGATE_HOOK_SERVER_IDLE_MS` overrides. */
export const DEFAULT_IDLE_MS = 10 * 60_000;
/** How often the server checks that the spool is still its own, and sweeps what clients left (ms). */
const WATCH_MS = 2_000;
/** Answers no client came for, and requests of clients that gave up, are removed after this long (ms). */
const STALE_MS = 60_000;
/**
 * A live server touches `server.pid` every WATCH_MS; one untouched for this long belongs to a server that is
 * gone even if its pid now names another process (bin/toolgate.cjs reads the same bound).
 */
export const HEARTBEAT_STALE_MS = 10_000;

function setProcessEnv(env: Record<string, string>): void {
  for (const key of Object.keys(process.env)) if (!(key in env)) delete process.env[key];
  for (const [key, value] of Object.entries(env)) if (process.env[key] !== value) process.env[key] = value;
}

function isRequest(value: unknown): value is HookRequest {
  const r = value as HookRequest;
  return (
    typeof r === 'object' &&
    r !== null &&
    r.v === 1 &&
    (r.command === undefined || r.command === 'run') &&
    Array.isArray(r.argv) &&
    r.argv.every((a) => typeof a === 'string') &&
    typeof r.cwd === 'string' &&
    typeof r.umask === 'number' &&
    typeof r.env === 'object' &&
    r.env !== null &&
    Object.values(r.env).every((v) => typeof v === 'string')
  );
}

async function* once(bytes: Buffer): AsyncIterable<Buffer> {
  yield bytes;
}

/** Answers one request (the bytes of a req- file) as `toolgate hook` would have in the caller's process. */
export async function answerRequest(bytes: Buffer): Promise<HookReply> {
  const newline = bytes.indexOf(10);
  let request: unknown;
  try {
    request = newline < 0 ? undefined : JSON.parse(bytes.subarray(0, newline).toString('utf8'));
  } catch {
    request = undefined;
  }
  if (!isRequest(request)) return { decline: 'malformed request' };
  const parsed = request.command === 'run' ? undefined : parseHookArgs(request.argv);
  if (typeof parsed === 'string') return blockingError(parsed);
  if (parsed?.options.approvals !== undefined) return { decline: 'approvals ask in the caller' };
  try {
    process.chdir(request.cwd);
  } catch (error) {
    return { decline: `cannot enter ${request.cwd}: ${(error as Error).message}` };
  }
  setProcessEnv(request.env);
  process.umask(request.umask);
  clearProcessCaches();
  if (parsed === undefined) {
    // `toolgate run`: the plan made here, with the caller's environment and cwd; the command runs in the
    // caller's process (its stdio, its signals, its exit).
    const plan = await planRun(request.argv);
    if (plan === undefined) return { decline: 'not the plain form of toolgate run' };
    return 'argv' in plan ? { exec: plan.argv } : plan;
  }
  return runHookCommand(
    parsed.assistant,
    parsed.options as HookCommandOptions,
    once(bytes.subarray(newline + 1)),
  );
}

/** Takes `server.pid` for this process; false when another live server has it. */
function claim(pidFile: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(pidFile, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return false;
    }
    const pid = Number.parseInt(readText(pidFile) ?? '', 10);
    if (Number.isInteger(pid) && pid > 0 && isProcessAlive(pid) && fresh(pidFile)) return false;
    try {
      unlinkSync(pidFile); // left by a server that died
    } catch {
      /* another starting server removed it first */
    }
  }
  return false;
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function fresh(file: string): boolean {
  try {
    return Date.now() - statSync(file).mtimeMs < HEARTBEAT_STALE_MS;
  } catch {
    return false;
  }
}

/**
 * Serves `toolgate hook` calls from the spool directory until idle for `idleMs`, or until the spool is no
 * longer its own (removed, or taken by another server). Resolves with the exit code.
 */
export async function hookServer(spool: string, idleMs = DEFAULT_IDLE_MS): Promise<number> {
  // The client made the spool before starting this server; gone since (its home removed: a test's temporary
  // directory) means nobody is left to serve, and re-creating it would leave a directory behind.
  if (!existsSync(spool)) return 0;
  const pidFile = join(spool, 'server.pid');
  const claimed = claim(pidFile);
  try {
    unlinkSync(join(spool, 'starting')); // the client's mark that a start is under way: it is over
  } catch {
    /* started by hand, or removed already */
  }
  if (!claimed) return 0;
  const own = `${process.pid}\n`;
  let lastUsed = Date.now();
  let draining = false;
  let again = false;
  let stopped = false;
  let done: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    done = resolve;
  });

  const serveOne = async (name: string): Promise<void> => {
    const id = name.slice(4);
    const work = join(spool, `work-${id}`);
    try {
      renameSync(join(spool, name), work); // taken: a client that gave up can no longer withdraw it
    } catch {
      return; // withdrawn, or taken by a server before us
    }
    let reply: HookReply;
    try {
      const bytes = readFileSync(work);
      unlinkSync(work);
      reply = await answerRequest(bytes);
    } catch (error) {
      reply = { decline: `the hook server failed: ${(error as Error).message}` };
    }
    const tmp = join(spool, `.res-${id}`);
    writeFileSync(tmp, JSON.stringify(reply), { mode: 0o600 });
    renameSync(tmp, join(spool, `res-${id}`));
    lastUsed = Date.now();
  };

  const drain = async (): Promise<void> => {
    if (draining) {
      again = true;
      return;
    }
    draining = true;
    try {
      do {
        again = false;
        let names: string[];
        try {
          names = readdirSync(spool).filter((n) => n.startsWith('req-'));
        } catch {
          names = [];
        }
        for (const name of names) {
          if (stopped) break;
          await serveOne(name);
          // A policy's own plugin code now loaded in this process: serve no later call with it.
          if ((globalThis as { __toolgateForeignCode?: boolean }).__toolgateForeignCode) stop();
        }
      } while (again && !stopped);
    } finally {
      draining = false;
    }
    if (stopped) done();
  };

  let watcher: ReturnType<typeof watch> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    watcher?.close();
    clearInterval(timer);
    if (readText(pidFile) === own)
      try {
        unlinkSync(pidFile);
      } catch {
        /* gone */
      }
    if (!draining) done();
  };

  const sweep = () => {
    const now = Date.now();
    try {
      for (const name of readdirSync(spool)) {
        if (!/^(res|\.res|\.req)-/.test(name)) continue;
        const file = join(spool, name);
        try {
          if (now - statSync(file).mtimeMs > STALE_MS) unlinkSync(file);
        } catch {
          /* taken meanwhile */
        }
      }
    } catch {
      /* the spool is gone: the check below stops the server */
    }
  };

  try {
    watcher = watch(spool, () => void drain());
    watcher.on('error', () => stop());
  } catch {
    // No inotify (limit reached, a filesystem without it): no server; every call answers in its own process.
    stop();
    return 0;
  }
  timer = setInterval(() => {
    if (readText(pidFile) !== own || !existsSync(spool)) return stop();
    if (!draining && Date.now() - lastUsed > idleMs) return stop();
    try {
      const now = new Date();
      utimesSync(pidFile, now, now); // the heartbeat clients look at
    } catch {
      return stop();
    }
    sweep();
    void drain(); // a request whose directory event was lost (inotify queue overflow) waits at most this long
  }, WATCH_MS);
  void drain(); // requests written before the watch started
  await finished;
  return 0;
}
