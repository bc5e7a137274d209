import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import type { Server, Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { clearProcessCaches, isProcessAlive, lazyBuiltin } from '@toolgate/core';
import { type HookCommandOptions, runHookCommand } from '../integrations/runHookCommand.js';
import { planRun } from '../run/runMain.js';
import { parseHookArgs } from './hookArgs.js';
import { blockingError, type HookAnswer } from './hookHost.js';

// The hook server: one warm process per user and toolgate build that answers `toolgate hook` calls, so a call
// costs Node's start and a hand-over through a unix socket instead of loading and compiling the policy
// engine and the shell analysis each time (issue 15: a Bash `git status` took ~2× `node -e 0` in-process).
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
// No secrets at rest (issue 23): a request holds the caller's whole environment (API keys), so it travels
// only through the socket, never through a file (until then requests were files in the spool, readable by
// sandboxed code of the same user and by any command the policy let read the cache). Who may hand a request
// over: the socket is in the user's 0700 spool and is itself 0600, so only this uid (and root) can connect;
// and since sandboxed code runs as the same uid, and a read-only mount does not stop connect(2), the server
// also checks the peer before it acts on a request (a served request loads policies and plugins outside any
// sandbox). Node offers no SO_PEERCRED, so the client proves who it is: the server sends a random nonce on
// accept, the client sets its own process name (comm) to it and names its pid in the request, and the server
// reads /proc/<pid>/comm, the pid, user and mount namespaces and the real and effective uid of that process.
// A process can set only its own comm, so a match binds the connection to that process; sandboxed code runs
// in its own pid, user and mount namespaces and is refused (it then answers in its own process, confined).
// A token in a 0600 file would not do: sandboxed code of the same uid could read it.
//
// The spool (a 0700 directory in the user's toolgate cache, which the starter policies deny writing to):
//   server.pid      the serving process (created exclusively; a newer server never shares the directory);
//                   touched every 2 s, so one left by a server that died is known even if its pid is reused
//   starting        a client is starting a server (so that parallel calls start one, not many)
//   sock            the server's unix socket (0600); a frame is a 32-bit big-endian length and its bytes:
//                   server → client the nonce (on accept); client → server the request, one JSON line
//                   ({@link HookRequest}) then stdin's bytes; server → client the reply ({@link HookReply})

const net = lazyBuiltin<typeof import('node:net')>('node:net');

/** One request, as bin/toolgate.cjs sends it. */
export interface HookRequest {
  v: 2;
  /** The client's pid: its comm is `nonce` while it waits (the peer check). */
  pid: number;
  nonce: string;
  /** `run`: plan `toolgate run` (argv after `run`); absent: answer `toolgate hook` (argv after `hook`). */
  command?: 'run';
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  umask: number;
}

/**
 * The answer: the in-process answer, `exec` (for `toolgate run`: the bubblewrap command line the client runs
 * in its own process, and the wall-time limit it enforces), or `decline` (the client then runs the call
 * itself).
 */
export type HookReply = HookAnswer | { exec: string[]; wallTimeMs?: number } | { decline: string };

/** How long an idle server lives (ms); `TOOLGATE_HOOK_SERVER_IDLE_MS` overrides. */
export const DEFAULT_IDLE_MS = 10 * 60_000;
/** How often the server checks that the spool is still its own and touches its heartbeat (ms). */
const WATCH_MS = 2_000;
/** A connection that has not handed over a whole request by then is closed (ms). */
const REQUEST_MS = 20_000;
/** The largest request taken (bytes): the event on stdin and the environment; more is refused. */
const MAX_REQUEST = 256 * 1024 * 1024;
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
    r.v === 2 &&
    Number.isInteger(r.pid) &&
    typeof r.nonce === 'string' &&
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

/** Answers one request (one JSON line, then stdin's bytes) as `toolgate hook` would have in the caller's process. */
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
    if (!('argv' in plan)) return plan;
    // The network proxy lives as long as the command, in the process that runs it: not here.
    if (plan.proxied) return { decline: "the sandbox's network proxy runs in the caller" };
    return plan.wallTimeMs === undefined
      ? { exec: plan.argv }
      : { exec: plan.argv, wallTimeMs: plan.wallTimeMs };
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
    if (Number.isInteger(pid) && pid > 0 && isProcessAlive(pid) && !isZombie(pid) && fresh(pidFile))
      return false;
    try {
      unlinkSync(pidFile); // left by a server that died
    } catch {
      /* another starting server removed it first */
    }
  }
  return false;
}

/** A process that has ended and is not reaped yet (its parent, init here, has not waited for it). */
function isZombie(pid: number): boolean {
  if (process.platform !== 'linux') return false;
  const stat = readText(`/proc/${pid}/stat`) ?? '';
  return stat[stat.lastIndexOf(')') + 2] === 'Z';
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
 * Whether the process `pid` is the peer that was sent `nonce`, and runs as this server does: its comm is the
 * nonce (only a process itself sets its comm), it is in this process's pid, user and mount namespaces (not
 * in a sandbox), and its real and effective uid are this process's. Elsewhere than Linux there is no sandbox
 * to keep out and no /proc: the spool's mode (0700, this uid's) is the check.
 */
export function peerIsOurs(pid: number, nonce: string): boolean {
  if (process.platform !== 'linux') return true;
  try {
    if (readFileSync(`/proc/${pid}/comm`, 'utf8').replace(/\n$/, '') !== nonce) return false;
    for (const ns of ['pid', 'user', 'mnt'])
      if (readlinkSync(`/proc/${pid}/ns/${ns}`) !== readlinkSync(`/proc/self/ns/${ns}`)) return false;
    const uid = /^Uid:\s+(\d+)\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    const own = process.getuid?.();
    return uid !== null && Number(uid[1]) === own && Number(uid[2]) === own;
  } catch {
    return false;
  }
}

function frame(payload: Buffer | string): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  const out = Buffer.allocUnsafe(4 + body.length);
  out.writeUInt32BE(body.length, 0);
  body.copy(out, 4);
  return out;
}

/** The request's pid and nonce, read from its JSON line (undefined: malformed). */
function peerOf(bytes: Buffer): { pid: number; nonce: string } | undefined {
  const newline = bytes.indexOf(10);
  try {
    const head = newline < 0 ? undefined : JSON.parse(bytes.subarray(0, newline).toString('utf8'));
    return Number.isInteger(head?.pid) && head.pid > 0 && typeof head.nonce === 'string'
      ? { pid: head.pid, nonce: head.nonce }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Requests older builds left as files: how old one must be before it is taken as abandoned (ms). */
const ABANDONED_MS = 60_000;

/**
 * Removes request files that servers of earlier builds (which handed requests over as files in their own
 * spools) left behind — each holds a caller's whole environment. Only files no live server of that build
 * would still take (older than a minute); run once when a server starts.
 */
export function sweepOldSpools(spool: string): void {
  const cache = dirname(spool);
  let names: string[];
  try {
    names = readdirSync(cache).filter((n) => n.startsWith('hookd-') && join(cache, n) !== spool);
  } catch {
    return;
  }
  const now = Date.now();
  for (const name of names) {
    const dir = join(cache, name);
    try {
      for (const file of readdirSync(dir)) {
        if (!/^(?:req|\.req|work)-/.test(file)) continue;
        const path = join(dir, file);
        if (now - statSync(path).mtimeMs > ABANDONED_MS) unlinkSync(path);
      }
    } catch {
      /* not ours to read, or gone */
    }
  }
}

/**
 * Serves `toolgate hook` calls on the spool's socket until idle for `idleMs`, or until the spool is no
 * longer its own (removed, or taken by another server). Resolves with the exit code.
 */
export async function hookServer(spool: string, idleMs = DEFAULT_IDLE_MS): Promise<number> {
  // The client made the spool before starting this server; gone since (its home removed: a test's temporary
  // directory) means nobody is left to serve, and re-creating it would leave a directory behind.
  if (!existsSync(spool)) return 0;
  const pidFile = join(spool, 'server.pid');
  const sockPath = join(spool, 'sock');
  const claimed = claim(pidFile);
  try {
    unlinkSync(join(spool, 'starting')); // the client's mark that a start is under way: it is over
  } catch {
    /* started by hand, or removed already */
  }
  if (!claimed) return 0;
  const own = `${process.pid}\n`;
  let lastUsed = Date.now();
  let busy = false;
  let stopped = false;
  let done: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    done = resolve;
  });
  const queue: Array<{ bytes: Buffer; socket: Socket }> = [];
  let server: Server | undefined;
  let timer: NodeJS.Timeout | undefined;

  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    server?.close();
    for (const { socket } of queue.splice(0)) socket.destroy();
    if (readText(pidFile) === own) {
      // The socket is ours while server.pid is: a newer server never shares the directory.
      for (const file of [sockPath, pidFile])
        try {
          unlinkSync(file);
        } catch {
          /* gone */
        }
    }
    if (!busy) done();
  };

  const serveQueue = async (): Promise<void> => {
    if (busy) return;
    busy = true;
    try {
      for (let next = queue.shift(); next !== undefined && !stopped; next = queue.shift()) {
        let reply: HookReply;
        try {
          reply = await answerRequest(next.bytes);
        } catch (error) {
          reply = { decline: `the hook server failed: ${(error as Error).message}` };
        }
        next.socket.end(frame(JSON.stringify(reply)));
        lastUsed = Date.now();
        // A policy's own plugin code now loaded in this process: serve no later call with it.
        if ((globalThis as { __toolgateForeignCode?: boolean }).__toolgateForeignCode) stop();
      }
    } finally {
      busy = false;
    }
    if (stopped) done();
  };

  const onConnection = (socket: Socket) => {
    socket.on('error', () => socket.destroy());
    socket.setTimeout(REQUEST_MS, () => socket.destroy());
    const nonce = randomBytes(8).toString('hex').slice(0, 15);
    socket.write(frame(nonce));
    const chunks: Buffer[] = [];
    let have = 0;
    let length = -1;
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      have += chunk.length;
      if (length < 0 && have >= 4) length = Buffer.concat(chunks).readUInt32BE(0);
      if (length > MAX_REQUEST) return void socket.destroy();
      if (length < 0 || have < 4 + length) return;
      socket.removeAllListeners('data');
      socket.pause();
      socket.setTimeout(0);
      const bytes = Buffer.concat(chunks).subarray(4, 4 + length);
      const peer = peerOf(bytes);
      // Nothing of a request is acted on before its sender is known to be this user outside any sandbox.
      if (peer === undefined || peer.nonce !== nonce || !peerIsOurs(peer.pid, nonce)) {
        socket.end(frame(JSON.stringify({ decline: 'the peer is not this user outside a sandbox' })));
        return;
      }
      queue.push({ bytes, socket });
      void serveQueue();
    });
  };

  sweepOldSpools(spool);
  try {
    unlinkSync(sockPath); // left by a server that died (server.pid is ours now)
  } catch {
    /* none */
  }
  const listening = await new Promise<boolean>((resolve) => {
    const umask = process.umask(0o077); // the socket file is created 0600 (srwx------ less x)
    try {
      server = net().createServer({ pauseOnConnect: false }, onConnection);
      server.once('error', () => resolve(false));
      server.listen(sockPath, () => resolve(true));
    } catch {
      resolve(false);
    } finally {
      process.umask(umask);
    }
  });
  if (!listening) {
    // No socket (a path too long for one, a filesystem without them): every call answers in its own process.
    stop();
    return 0;
  }
  try {
    chmodSync(sockPath, 0o600);
  } catch {
    stop();
    return 0;
  }
  server?.on('error', () => stop());
  timer = setInterval(() => {
    if (readText(pidFile) !== own || !existsSync(spool)) return stop();
    if (!busy && queue.length === 0 && Date.now() - lastUsed > idleMs) return stop();
    try {
      const now = new Date();
      utimesSync(pidFile, now, now); // the heartbeat clients look at before starting a server
    } catch {
      return stop();
    }
  }, WATCH_MS);
  await finished;
  return 0;
}
