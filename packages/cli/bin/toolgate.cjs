#!/usr/bin/env node
'use strict';
// The `toolgate` command. CommonJS and dependency-free on purpose: `toolgate hook` runs before every tool call
// a coding assistant makes, and a CommonJS entry that loads one bundled file starts faster than ES modules
// (no module graph to resolve and link). Everything else is the ES-module CLI in dist/.
const {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} = require('node:fs');
const { dirname, isAbsolute, join } = require('node:path');

/**
 * `toolgate … | head -1`: once the reader has gone, every further write fails with EPIPE, emitted as an
 * 'error' event that, unhandled, crashes with a stack trace. A closed pipe is the reader saying "enough":
 * stop quietly with the exit code so far, as cat and grep do. Any other stream error stays loud.
 */
function exitQuietlyOnClosedPipe() {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error) => {
      if (error.code !== 'EPIPE') throw error;
      process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
    });
  }
}

/** The same directory as the policy cache (src/config/policyCache.ts `cacheDir`). */
function cacheDir(env) {
  if (env.TOOLGATE_CACHE === 'off' || env.TOOLGATE_CACHE === '0') return undefined;
  if (env.TOOLGATE_CACHE_DIR && isAbsolute(env.TOOLGATE_CACHE_DIR)) return env.TOOLGATE_CACHE_DIR;
  if (env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME)) return join(env.XDG_CACHE_HOME, 'toolgate');
  return env.HOME && isAbsolute(env.HOME) ? join(env.HOME, '.cache', 'toolgate') : undefined;
}

/**
 * Loads one bundle of dist/hook-bundle (scripts/bundle-hook.mjs: the same sources in a few files) with a V8 code
 * cache; undefined when the bundle was not built.
 *
 * Node 20 has no module compile cache, but `vm.Script` takes V8 code-cache data: the first call compiles and
 * stores it (after the call, so the functions it ran are in it), later calls deserialize it. The data is keyed
 * by Node version, architecture and the bundle's path, size, mtime and inode; V8 itself rejects data from
 * another V8 or other flags, and then the source is simply compiled. It caches compiled code for exactly this
 * file: it cannot change what the code decides.
 *
 * `variants`: cache names tried in order (suffixes). `save(variant)`, called after the call, writes the cache
 * named by `variant` when it is missing, was rejected, or is better than the one read.
 */
function loadBundle(kind, variants = ['']) {
  const file = join(__dirname, '..', 'dist', 'hook-bundle', `${kind}.cjs`);
  if (!existsSync(file)) return undefined;
  const { Script } = require('node:vm');
  // esbuild writes the bundle as pure ASCII (the build checks it): latin1 decodes it fastest, exactly.
  const source = readFileSync(file, 'latin1');
  const st = statSync(file);
  const dir = cacheDir(process.env);
  const id = `${process.version}-${process.arch}-${st.size}-${Math.trunc(st.mtimeMs)}-${st.ino}`;
  const base = dir ? join(dir, 'code', `${kind}-${id}`) : undefined;
  const names = variants.map((v) => `${base}${v}.bin`);
  let cachedData;
  let cacheUsed;
  for (const candidate of base ? names : []) {
    try {
      cachedData = readFileSync(candidate);
      cacheUsed = candidate;
      break;
    } catch {
      cachedData = undefined;
    }
  }
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
  });
  const mod = { exports: {} };
  script
    .runInThisContext()
    .call(mod.exports, mod.exports, require('node:module').createRequire(file), mod, file, dirname(file));
  const save = (variant = '') => {
    const cachePath = base ? `${base}${variant}.bin` : undefined;
    if (!cachePath || (cachedData !== undefined && !script.cachedDataRejected && cacheUsed === cachePath))
      return;
    // Only a better cache replaces one that was used (the hook's shell variant over the plain one).
    if (
      cacheUsed !== undefined &&
      !script.cachedDataRejected &&
      names.indexOf(cacheUsed) < names.indexOf(cachePath)
    )
      return;
    try {
      mkdirSync(dirname(cachePath), { recursive: true, mode: 0o700 });
      const tmp = `${cachePath}.${process.pid}.tmp`;
      writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
      renameSync(tmp, cachePath); // atomic: parallel calls read a whole cache file or none
      // Caches of other builds of this bundle (an upgraded or rebuilt toolgate) are never read again.
      for (const name of readdirSync(dirname(cachePath)))
        if (name.startsWith(`${kind}-`) && !names.some((n) => n.endsWith(`/${name}`)))
          rmSync(join(dirname(cachePath), name), { force: true });
    } catch {
      // no cache: the next call compiles again
    }
  };
  return { exports: mod.exports, save };
}

/**
 * Runs `entry` of a bundle (see loadBundle); undefined when the bundle was not built or the entry declines
 * the arguments. Bundles the entry loaded on demand (the shell analysis: `globalThis.__toolgateLoadBundle`)
 * come from their own code caches, saved with this one.
 *
 * `variant()`, asked after the call, names the cache this call should leave (the hook keeps one written by a
 * call that analysed a shell command — more of its functions ran — beside one written by any other call).
 */
async function runBundle(kind, entry, argv, variants = [''], variant = () => '', ...rest) {
  const onDemand = [];
  globalThis.__toolgateLoadBundle = (name) => {
    const loaded = loadBundle(name);
    if (loaded === undefined)
      throw new Error(`toolgate: dist/hook-bundle/${name}.cjs is missing (rebuild the package)`);
    onDemand.push(loaded);
    return loaded.exports;
  };
  return runLoaded(loadBundle(kind, variants), entry, argv, variant, onDemand, ...rest);
}

/** Runs `entry` of a bundle loadBundle returned (see runBundle). */
async function runLoaded(bundle, entry, argv, variant = () => '', onDemand = [], ...rest) {
  if (bundle === undefined) return undefined;
  const code = await bundle.exports[entry](argv, ...rest);
  if (code !== undefined) {
    bundle.save(variant());
    for (const loaded of onDemand) loaded.save();
  }
  return code;
}

/** `toolgate hook` from the bundle (src/hook/hookMain.ts); `stdin`: the event's bytes when already being read. */
function runHookBundle(argv, stdin) {
  return runBundle(
    'hook',
    'hookMain',
    argv,
    ['-shell', ''],
    () => (globalThis.__toolgateLazyLoaded?.has('analyseCommand') === true ? '-shell' : ''),
    ...(stdin ? [stdin] : []),
  );
}

// ---- The hook server (src/hook/hookServer.ts) -------------------------------------------------------------
// A warm process per user and build answers hook calls through a unix socket in its spool directory; this
// process then costs Node's start and one connection. It never changes a decision (see hookServer.ts); whenever it cannot
// answer — not running, a spool that is not this user's alone, stdin not complete at once, a decline, a
// crash, silence — this process runs the call itself with the stdin bytes it has read, and starts a server
// for the next call if none runs. TOOLGATE_HOOK_SERVER=off turns it off.

/** FNV-1a (32 bits) in hex: a short name for this user's server of this Node and toolgate build. */
function shortHash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

/** The spool directory of the hook server for this user, Node and toolgate build; undefined when none may be used. */
function hookSpool(env) {
  const setting = (env.TOOLGATE_HOOK_SERVER ?? '').toLowerCase();
  if (setting === 'off' || setting === '0' || setting === 'false' || setting === 'no') return undefined;
  const dir = cacheDir(env);
  if (!dir) return undefined;
  let st;
  try {
    st = statSync(join(__dirname, '..', 'dist', 'hook-bundle', 'hook.cjs'));
  } catch {
    return undefined;
  }
  const id = [
    process.execPath,
    process.version,
    process.arch,
    __filename,
    st.size,
    Math.trunc(st.mtimeMs),
    st.ino,
  ];
  const spool = join(dir, `hookd-${shortHash(id.join('\0'))}`);
  // A unix socket's path has room for 107 bytes (Linux): where `sock` would not fit, no server.
  return Buffer.byteLength(join(spool, 'sock')) > 100 ? undefined : spool;
}

/** Whether `spool` is this user's alone (mode 0700): true; null when it is not; undefined when missing. */
function spoolTrusted(spool) {
  let st;
  try {
    st = statSync(spool);
  } catch {
    return undefined;
  }
  if ((st.mode & 0o077) !== 0 || (typeof process.getuid === 'function' && st.uid !== process.getuid()))
    return null;
  return true;
}

/** The pid of the live server of a trusted `spool`, or undefined (asked before starting one). */
function livePid(spool) {
  try {
    const pidFile = join(spool, 'server.pid');
    // Touched every 2 s by a live server (hookServer.ts HEARTBEAT_STALE_MS): older is a dead server's.
    if (Date.now() - statSync(pidFile).mtimeMs >= 10_000) return undefined;
    const pid = Number.parseInt(readFileSync(pidFile, 'utf8'), 10);
    if (!Number.isInteger(pid) || pid <= 0) return undefined;
    process.kill(pid, 0);
    // A server killed a moment ago may not be reaped yet: a zombie serves nobody.
    if (process.platform === 'linux') {
      const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
      if (stat[stat.lastIndexOf(')') + 2] === 'Z') return undefined;
    }
    return pid;
  } catch {
    return undefined;
  }
}

/**
 * Where stdin is read from without process.stdin (whose getter loads the tty and stream modules: ~2 ms of a
 * call), as src/hook/hookMain.ts reads it: a pipe is opened anew without blocking and polled, a socket is made
 * non-blocking through the pipe binding, a file or /dev/null is read directly. `blocking`: reads may wait
 * (a terminal), so they go through the thread pool.
 */
function stdinFd() {
  const fs = require('node:fs');
  const st = fs.fstatSync(0);
  if (st.isFIFO())
    return { fd: fs.openSync('/proc/self/fd/0', fs.constants.O_RDONLY | fs.constants.O_NONBLOCK), own: true };
  if (st.isSocket()) {
    const binding = process.binding('pipe_wrap');
    const pipe = new binding.Pipe(binding.constants.SOCKET);
    if (pipe.open(0) !== 0) throw new Error('stdin socket');
    stdinFd.keep = pipe; // closing the handle would close fd 0
    return { fd: 0 };
  }
  return { fd: 0, blocking: !st.isFile() && !st.isCharacterDevice() };
}

/** Stdin, read once: handed to the server when it is complete, or replayed to an in-process run. */
function stdinCollector() {
  const fs = require('node:fs');
  const source = stdinFd();
  const chunks = [];
  const waiters = new Set();
  let ended = false;
  let closed = false;
  const wake = () => {
    for (const w of waiters) w();
    waiters.clear();
  };
  const got = (error, n, buffer) => {
    if (closed) return;
    // Unref'd: polling alone keeps nothing alive (the hook's own deadline does, in process).
    if (error?.code === 'EAGAIN') return void setTimeout(attempt, 1).unref();
    if (error || n === 0) {
      ended = true;
      return wake();
    }
    chunks.push(buffer.subarray(0, n));
    wake();
    attempt();
  };
  const attempt = () => {
    if (closed) return;
    const buffer = Buffer.allocUnsafe(64 * 1024);
    if (source.blocking)
      return fs.read(source.fd, buffer, 0, buffer.length, null, (e, n) => got(e, n, buffer));
    let n;
    try {
      n = fs.readSync(source.fd, buffer, 0, buffer.length, null);
    } catch (error) {
      return got(error, 0, buffer);
    }
    got(null, n, buffer);
  };
  attempt();
  return {
    /** All of stdin, when it ends within `ms`; undefined otherwise (reading goes on for a replay). */
    complete(ms) {
      if (ended) return Promise.resolve(Buffer.concat(chunks));
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(undefined), ms);
        const check = () => {
          if (!ended) return void waiters.add(check);
          clearTimeout(timer);
          resolve(Buffer.concat(chunks));
        };
        waiters.add(check);
      });
    },
    /** Everything read so far, then the rest as it arrives. */
    async *replay() {
      let i = 0;
      for (;;) {
        while (i < chunks.length) yield chunks[i++];
        if (ended) return;
        await new Promise((resolve) => waiters.add(resolve));
      }
    },
    close() {
      closed = true;
      if (source.own)
        try {
          fs.closeSync(source.fd);
        } catch {
          /* already closed */
        }
    },
  };
}

/** Writes all of `text` to fd 1 or 2, as src/hook/writeOut.ts does. */
function writeFd(fd, text) {
  let buffer = Buffer.from(text, 'utf8');
  while (buffer.length > 0) {
    try {
      buffer = buffer.subarray(require('node:fs').writeSync(fd, buffer));
    } catch (error) {
      if (error.code === 'EAGAIN') continue;
      if (error.code === 'EPIPE') return;
      throw error;
    }
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/** How long a caller waits for the server's answer (ms) before it answers itself. */
const SERVER_WAIT_MS = 20_000;

/**
 * A connection to the server of the trusted `spool`, through its socket (`sock`), made with libuv's pipe
 * handle rather than node:net (which, with the stream modules under it, costs a call ~2 ms): written through
 * its fd, read through the handle's own callback (the event loop wakes when the server writes: no polling);
 * the server's nonce already read. `{none: true}` when no server listens there; `{}` when one accepted and
 * then fell silent or closed.
 *
 * The hand-over (issue 23, no secrets at rest): the request — the caller's whole environment among it —
 * goes through the socket only, never into a file. The server sends a nonce first; this process sets its
 * own name (comm) to it while it waits, so the server can tell from /proc that the peer is this user's
 * process outside any sandbox (src/hook/hookServer.ts, peerIsOurs), and restores its name afterwards.
 */
async function connectHookServer(spool) {
  const pending =
    process.execArgv.includes('--pending-deprecation') ||
    /(^|\s)--pending-deprecation\b/.test(process.env.NODE_OPTIONS ?? '');
  if (typeof process.binding !== 'function' || pending) return { none: true };
  let pipe;
  let status;
  try {
    const { Pipe, PipeConnectWrap, constants } = process.binding('pipe_wrap');
    pipe = new Pipe(constants.SOCKET);
    const req = new PipeConnectWrap();
    status = new Promise((resolve) => {
      req.oncomplete = resolve; // (status): 0, or -ENOENT / -ECONNREFUSED when no server listens
    });
    if (pipe.connect(req, join(spool, 'sock')) !== 0) throw new Error('connect');
  } catch {
    closePipe(pipe);
    return { none: true };
  }
  if ((await status) !== 0 || !(pipe.fd >= 0)) {
    closePipe(pipe);
    return { none: true };
  }
  const conn = { pipe, fd: pipe.fd, frames: frameReader(pipe), deadline: Date.now() + SERVER_WAIT_MS };
  const nonce = await conn.frames.next(conn.deadline);
  if (nonce === undefined) {
    closePipe(pipe);
    return {};
  }
  conn.nonce = nonce.toString('latin1');
  return { conn };
}

function closePipe(pipe) {
  try {
    pipe?.readStop?.();
    pipe?.close();
  } catch {
    /* closed */
  }
}

/**
 * Frames (a 32-bit big-endian length, then that many bytes) read from a connected pipe handle through its
 * `onread` callback, as node:net itself reads (stream_wrap's shared state gives the byte count).
 * `next(deadline)` resolves with the next frame, or undefined when the connection ends or the time is over.
 */
function frameReader(pipe) {
  const { streamBaseState, kReadBytesOrError, kArrayBufferOffset } = process.binding('stream_wrap');
  let rest = Buffer.alloc(0);
  let ended = false;
  let wake = () => {};
  pipe.onread = (arrayBuffer) => {
    const n = streamBaseState[kReadBytesOrError];
    if (n > 0) rest = Buffer.concat([rest, Buffer.from(arrayBuffer, streamBaseState[kArrayBufferOffset], n)]);
    else if (n < 0) ended = true; // the server closed the connection (it died, or refused), or an error
    wake();
  };
  if (pipe.readStart() !== 0) ended = true;
  const frame = () => {
    if (rest.length < 4 || rest.length < 4 + rest.readUInt32BE(0)) return undefined;
    const body = rest.subarray(4, 4 + rest.readUInt32BE(0));
    rest = rest.subarray(4 + body.length);
    return body;
  };
  return {
    next(deadline) {
      return new Promise((resolve) => {
        const timer = setTimeout(() => done(undefined), Math.max(0, deadline - Date.now()));
        const done = (value) => {
          clearTimeout(timer);
          wake = () => {};
          resolve(value);
        };
        wake = () => {
          const body = frame();
          if (body !== undefined || ended) done(body);
        };
        wake();
      });
    },
  };
}

/** Writes all of `bytes` to the connection; false when it failed or the time is over. */
function writeAll(conn, bytes) {
  const fs = require('node:fs');
  while (bytes.length > 0) {
    try {
      bytes = bytes.subarray(fs.writeSync(conn.fd, bytes));
    } catch (error) {
      if (error.code !== 'EAGAIN' || Date.now() > conn.deadline) return false;
      Atomics.wait(pause, 0, 0, 0.05); // the server is reading: room soon
    }
  }
  return true;
}

/**
 * Hands one call to the server of `spool` over a connection from connectHookServer. `wait()` then resolves
 * with its answer ({stdout, stderr, exitCode}, or {exec} for `command` 'run'), or undefined when it declines,
 * dies or stays silent — this process then answers itself. In between, this process may prepare what it
 * does with the answer while the server works. Undefined when it could not be handed over.
 */
function sendToHookServer(conn, argv, stdin, command) {
  const title = process.title;
  const restore = () => {
    // The argv area now holds the title: put the command line back (as one string) for ps and pgrep -f.
    process.title = [process.argv0, ...process.argv.slice(1)].join(' ');
    if (process.title === conn.nonce) process.title = title;
    closePipe(conn.pipe);
  };
  try {
    process.title = conn.nonce; // the proof the server reads in /proc/<pid>/comm
    const umask = process.umask(0o077);
    process.umask(umask);
    const header = JSON.stringify({
      v: 2,
      pid: process.pid,
      nonce: conn.nonce,
      ...(command ? { command } : {}),
      argv,
      cwd: process.cwd(),
      env: process.env,
      umask,
    });
    const body = Buffer.concat([Buffer.from(`${header}\n`), stdin]);
    const length = Buffer.allocUnsafe(4);
    length.writeUInt32BE(body.length, 0);
    if (!writeAll(conn, Buffer.concat([length, body]))) throw new Error('write');
  } catch {
    restore();
    return undefined;
  }
  const wait = async () => {
    const bytes = await conn.frames.next(conn.deadline);
    restore();
    let reply;
    try {
      reply = bytes === undefined ? undefined : JSON.parse(bytes.toString('utf8'));
    } catch {
      reply = undefined;
    }
    const answer = reply && typeof reply.exitCode === 'number' && typeof reply.stdout === 'string';
    const exec =
      command === 'run' &&
      Array.isArray(reply?.exec) &&
      reply.exec.length > 0 &&
      reply.exec.every((a) => typeof a === 'string') &&
      (reply.wallTimeMs === undefined || (Number.isInteger(reply.wallTimeMs) && reply.wallTimeMs > 0));
    return answer || exec ? reply : undefined;
  };
  return { wait };
}

/** Starts a hook server for later calls (detached: it outlives this process). At most one start at a time. */
function startHookServer(spool) {
  try {
    mkdirSync(spool, { recursive: true, mode: 0o700 });
    const mark = join(spool, 'starting');
    try {
      if (Date.now() - statSync(mark).mtimeMs < 10_000) return; // one is starting
    } catch {
      /* no mark */
    }
    writeFileSync(mark, `${process.pid}\n`, { mode: 0o600 });
    require('node:child_process')
      .spawn(process.execPath, [__filename, '__hook-server', spool], {
        detached: true,
        stdio: 'ignore',
        cwd: spool,
        env: process.env,
      })
      .unref();
  } catch {
    // no server: every call answers in its own process, as without one
  }
}

/** The pid in the spool's server.pid (for the trace). */
function servingPid(spool) {
  try {
    return Number.parseInt(readFileSync(join(spool, 'server.pid'), 'utf8'), 10);
  } catch {
    return 'the hook server';
  }
}

/**
 * TOOLGATE_HOOK_TRACE=<absolute file>: one line per call saying who answered it (diagnostics and tests);
 * `line` may be a function, called only when tracing.
 */
function trace(line) {
  const file = process.env.TOOLGATE_HOOK_TRACE;
  if (!file || !isAbsolute(file)) return;
  try {
    require('node:fs').appendFileSync(file, `${process.pid} ${typeof line === 'function' ? line() : line}\n`);
  } catch {
    /* diagnostics only */
  }
}

/** `toolgate hook`: through the server when one answers, else in this process. */
async function runHook(argv) {
  const spool = hookSpool(process.env);
  // A terminal approver must ask in the caller's terminal: never through the server.
  if (spool === undefined || argv.some((a) => a === '--approvals' || a.startsWith('--approvals='))) {
    trace(`in-process: ${spool === undefined ? 'no server for this environment' : '--approvals'}`);
    return runHookBundle(argv);
  }
  let collector;
  try {
    collector = stdinCollector();
  } catch {
    trace('in-process: stdin');
    return runHookBundle(argv);
  }
  const trusted = spoolTrusted(spool);
  const connected = trusted ? await connectHookServer(spool) : { none: true };
  // The event is written whole before the hook starts; one still open is the in-process reader's to time out.
  const stdin = connected.conn ? await collector.complete(250) : undefined;
  const sent = stdin === undefined ? undefined : sendToHookServer(connected.conn, argv, stdin);
  if (connected.conn && !sent) closePipe(connected.conn.pipe);
  const answer = await sent?.wait();
  if (answer !== undefined) {
    trace(() => `served by ${servingPid(spool)}`);
    collector.close();
    writeFd(1, answer.stdout);
    writeFd(2, answer.stderr);
    return answer.exitCode;
  }
  trace(
    `in-process: ${trusted === null ? "the spool is not this user's alone" : connected.none ? 'no server running' : connected.conn && stdin === undefined ? 'stdin still open' : 'the server did not answer'}`,
  );
  let code = await runHookBundle(argv, collector.replay());
  if (code === undefined) {
    const { hookMain } = await import('../dist/hook/hookMain.js');
    code = await hookMain(argv, collector.replay());
  } else if (trusted !== null && connected.none && livePid(spool) === undefined) startHookServer(spool);
  collector.close();
  return code;
}

/** `toolgate __hook-server <spool>` (started by runHook): serves hook calls until idle. */
async function runHookServer(spool) {
  globalThis.__toolgateLoadBundle = (name) => {
    const loaded = loadBundle(name);
    if (loaded === undefined) throw new Error(`toolgate: dist/hook-bundle/${name}.cjs is missing`);
    return loaded.exports;
  };
  const bundle = loadBundle('hook', ['-shell', '']);
  if (bundle === undefined || typeof spool !== 'string') return 1;
  const idle = Number(process.env.TOOLGATE_HOOK_SERVER_IDLE_MS);
  return bundle.exports.hookServer(spool, Number.isInteger(idle) && idle > 0 ? idle : undefined);
}

/**
 * `toolgate run`: the hook server plans it when one runs (the policy, the mounts and the glob walk made in its
 * warm process with this process's environment and cwd: src/hook/hookServer.ts), and this process runs the
 * plan with the small exec bundle (src/run/execMain.ts) — the command is this process's child, with its stdio,
 * cwd, environment and signals. Otherwise the run bundle does all of it here (src/run/runMain.ts) and a
 * server is started for later runs. Undefined when the arguments are not in the plain form the bundle reads
 * (the full CLI runs them).
 */
async function runRun(argv) {
  const spool = hookSpool(process.env);
  // Connected and handed over first, then the exec bundle loaded while the server plans (on another core,
  // usually).
  const trusted = spool === undefined ? undefined : spoolTrusted(spool);
  const connected = trusted ? await connectHookServer(spool) : { none: true };
  const sent = connected.conn ? sendToHookServer(connected.conn, argv, Buffer.alloc(0), 'run') : undefined;
  const exec = sent ? loadBundle('exec') : undefined;
  const reply = await sent?.wait();
  if (reply?.exec) {
    const code = await runLoaded(exec, 'execMain', reply.exec, undefined, undefined, reply.wallTimeMs);
    if (code !== undefined) {
      trace(() => `run served by ${servingPid(spool)}`);
      return code;
    }
  } else if (reply !== undefined) {
    trace(() => `run served by ${servingPid(spool)}`);
    writeFd(1, reply.stdout);
    writeFd(2, reply.stderr);
    return reply.exitCode;
  }
  trace(
    `run in-process: ${spool === undefined ? 'no server for this environment' : trusted === null ? "the spool is not this user's alone" : connected.none ? 'no server running' : 'the server declined or did not answer'}`,
  );
  const code = await runBundle('run', 'runMain', argv);
  if (
    code !== undefined &&
    connected.none &&
    trusted !== null &&
    spool !== undefined &&
    livePid(spool) === undefined
  )
    startHookServer(spool);
  return code;
}

async function run(argv) {
  // `--help` goes to the full CLI, which documents the hook's flags.
  if (argv[0] === '__hook-server') return runHookServer(argv[1]);
  if (argv[0] === 'hook' && !argv.includes('--help') && !argv.includes('-h')) {
    const code = await runHook(argv.slice(1));
    if (code !== undefined) return code;
    const { hookMain } = await import('../dist/hook/hookMain.js');
    return hookMain(argv.slice(1));
  }
  if (argv[0] === 'run') {
    const code = await runRun(argv.slice(1));
    if (code !== undefined) {
      runEndsNow = true;
      return code;
    }
    exitQuietlyOnClosedPipe();
  }
  const { main } = await import('../dist/main.js');
  return main(argv);
}

const argv = process.argv.slice(2);
// The hook writes through fds directly (src/hook/writeOut.ts); touching process.stdout here would load the
// stream modules it avoids.
// `run` writes through fds too (its fallback to the full CLI sets this up).
if (argv[0] !== 'hook' && argv[0] !== 'run' && argv[0] !== '__hook-server') exitQuietlyOnClosedPipe();
// `toolgate run` answered by the bundles: all it wrote went through fds, synchronously, and nothing of it is
// still running — exit at once rather than through Node's teardown (~0.5 ms of the sandbox's start-up cost).
let runEndsNow = false;
run(argv).then(
  (code) => {
    process.exitCode = code;
    if (runEndsNow) process.exit(code);
    // The hook's answer is written (synchronously, to the fds). What is still running (a webhook delivery)
    // may finish, but nothing keeps the process past a bound: not a read still pending on a stdin that never
    // closed (the stdin timeout's deny), which no event-loop handle would end.
    if (argv[0] === 'hook') setTimeout(() => process.exit(code), 10_000).unref();
  },
  (error) => {
    process.stderr.write(`toolgate: internal error: ${error?.stack ?? String(error)}\n`);
    process.exitCode = 2;
  },
);
