import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { cacheDir } from '../config/policyCache.js';
import type { hookMain as HookMain } from './hookMain.js';

/**
 * Runs `toolgate hook` from dist/hook-bundle/hook.cjs (scripts/bundle-hook.mjs) with a V8 code cache, or
 * returns undefined when the bundle was not built (then bin.js imports tsc's modules of the same source).
 *
 * Why: after bundling, compiling the bundle's source was the largest cost left in a hook call. Node 20 has no
 * module compile cache, but `vm.Script` takes V8 code-cache data: the first call compiles and stores it (after
 * the call, so the functions it ran are in it), later calls deserialize it. The cache holds compiled code for
 * exactly this file (keyed by Node version, file size, mtime and inode; V8 also rejects data from another
 * V8 or flags, and then the source is simply compiled) — it cannot change what the code decides.
 */
export async function runHookBundle(argv: readonly string[]): Promise<number | undefined> {
  const file = fileURLToPath(new URL('../hook-bundle/hook.cjs', import.meta.url));
  if (!existsSync(file)) return undefined;
  const source = readFileSync(file, 'utf8');
  const st = statSync(file);
  const dir = cacheDir(process.env);
  const key = createHash('sha256')
    .update(`${process.version}\0${process.arch}\0${file}\0${st.size}\0${st.mtimeMs}\0${st.ino}`)
    .digest('hex')
    .slice(0, 32);
  const cachePath = dir ? join(dir, 'code', `hook-${key}.bin`) : undefined;
  let cachedData: Buffer | undefined;
  try {
    if (cachePath) cachedData = readFileSync(cachePath);
  } catch {
    cachedData = undefined;
  }
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
  });
  const module = { exports: {} as { hookMain?: typeof HookMain } };
  (script.runInThisContext() as (...args: unknown[]) => void).call(
    module.exports,
    module.exports,
    createRequire(file),
    module,
    file,
    dirname(file),
  );
  const code = await module.exports.hookMain!(argv);
  if (cachePath && (cachedData === undefined || script.cachedDataRejected)) {
    try {
      mkdirSync(dirname(cachePath), { recursive: true, mode: 0o700 });
      const tmp = `${cachePath}.${process.pid}.tmp`;
      writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
      renameSync(tmp, cachePath);
    } catch {
      // no cache: the next call compiles again
    }
  }
  return code;
}
