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
 * Runs one entry of a bundle in dist/hook-bundle (scripts/bundle-hook.mjs: the same sources in one file) with
 * a V8 code cache; undefined when the bundle was not built or the entry declines the arguments.
 *
 * Node 20 has no module compile cache, but `vm.Script` takes V8 code-cache data: the first call compiles and
 * stores it (after the call, so the functions it ran are in it), later calls deserialize it. The data is keyed
 * by Node version, architecture and the bundle's path, size, mtime and inode; V8 itself rejects data from
 * another V8 or other flags, and then the source is simply compiled. It caches compiled code for exactly this
 * file: it cannot change what the code decides.
 *
 * `variants`: cache names tried in order (suffixes); `variant()`, asked after the call, names the one this
 * call should leave (the hook keeps one written by a call that analysed a shell command — it holds the shell
 * analysis's compiled functions too — beside one written by any other call).
 */
async function runBundle(kind, entry, argv, variants = [''], variant = () => '') {
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
  const code = await mod.exports[entry](argv);
  const cachePath = base && code !== undefined ? `${base}${variant()}.bin` : undefined;
  if (cachePath && (cachedData === undefined || script.cachedDataRejected || cacheUsed !== cachePath)) {
    // Only a better cache replaces one that was used (the hook's shell variant over the plain one).
    if (cacheUsed !== undefined && !script.cachedDataRejected && names.indexOf(cacheUsed) < names.indexOf(cachePath))
      return code;
    try {
      mkdirSync(dirname(cachePath), { recursive: true, mode: 0o700 });
      const tmp = `${cachePath}.${process.pid}.tmp`;
      writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
      renameSync(tmp, cachePath); // atomic: parallel calls read a whole cache file or none
      // Caches of other bundles (an upgraded or rebuilt toolgate) are never read again.
      for (const name of readdirSync(dirname(cachePath)))
        if (name.startsWith(`${kind}-`) && !names.some((n) => n.endsWith(`/${name}`)))
          rmSync(join(dirname(cachePath), name), { force: true });
    } catch {
      // no cache: the next call compiles again
    }
  }
  return code;
}

/** `toolgate hook` from the bundle (src/hook/hookMain.ts). */
function runHookBundle(argv) {
  return runBundle('hook', 'hookMain', argv, ['-shell', ''], () =>
    globalThis.__toolgateLazyLoaded?.has('analyseCommand') === true ? '-shell' : '',
  );
}

/**
 * `toolgate run` from the bundle (src/run/runMain.ts); undefined when the arguments are not in the plain form
 * it reads (the full CLI runs them).
 */
function runRunBundle(argv) {
  return runBundle('run', 'runMain', argv);
}

async function run(argv) {
  // `--help` goes to the full CLI, which documents the hook's flags.
  if (argv[0] === 'hook' && !argv.includes('--help') && !argv.includes('-h')) {
    const code = await runHookBundle(argv.slice(1));
    if (code !== undefined) return code;
    const { hookMain } = await import('../dist/hook/hookMain.js');
    return hookMain(argv.slice(1));
  }
  if (argv[0] === 'run') {
    const code = await runRunBundle(argv.slice(1));
    if (code !== undefined) return code;
    exitQuietlyOnClosedPipe();
  }
  const { main } = await import('../dist/main.js');
  return main(argv);
}

const argv = process.argv.slice(2);
// The hook writes through fds directly (src/hook/writeOut.ts); touching process.stdout here would load the
// stream modules it avoids.
// `run` writes through fds too (its fallback to the full CLI sets this up).
if (argv[0] !== 'hook' && argv[0] !== 'run') exitQuietlyOnClosedPipe();
run(argv).then(
  (code) => {
    process.exitCode = code;
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
