import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { CompiledPolicy } from '@toolgate/folder-rules';
import type { CliSettings } from './cliSettings.js';
import { fnv64 } from './fnv.js';

/**
 * A compiled policy on disk, so a hook process (one per tool call) skips parsing and validating the policy
 * file — and loading the YAML, TOML and schema libraries that takes. Correctness over speed, always:
 *
 * - An entry is used only when every file the policy was compiled from (its `sources`) is unchanged — same
 *   device, inode, size, modification and change times (ns), and the same bytes (a hash of the content, read
 *   on every use) — and every environment variable the loader read (`${VAR}` expansion, `WOLO_WILD_MODE`…)
 *   still has the same value. Anything else recompiles. (The hash is FNV, not sha256: node:crypto cost a hook
 *   call more than its whole decision; the stat signature is what a same-length edit cannot keep.)
 * - A policy is stored only if a JSON round trip gives back exactly the same value (no Date, no undefined):
 *   what is read back is what the loader returned. A loader that enumerates the environment is not cached.
 * - Any failure to read, parse or write the cache is a miss, never an error: the cache can only save time.
 *
 * Entries live in `$TOOLGATE_CACHE_DIR`, else `$XDG_CACHE_HOME/toolgate`, else `~/.cache/toolgate`;
 * `TOOLGATE_CACHE=off` disables it.
 */
export interface CacheKey {
  version: string;
  /** Absent: inferred by the loader from the file. */
  dialect?: string;
  file: string;
  agent?: string;
  overlays?: readonly string[];
  cliPaths?: readonly string[];
}

export interface Compiled {
  policy: CompiledPolicy;
  settings: CliSettings;
}

interface Entry extends Compiled {
  v: 1;
  key: CacheKey;
  sources: Array<{ file: string; sig: string }>;
  env: Record<string, string | null>;
}

export function cacheDir(env: NodeJS.ProcessEnv): string | undefined {
  if (env.TOOLGATE_CACHE === 'off' || env.TOOLGATE_CACHE === '0') return undefined;
  if (env.TOOLGATE_CACHE_DIR && isAbsolute(env.TOOLGATE_CACHE_DIR)) return env.TOOLGATE_CACHE_DIR;
  if (env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME)) return join(env.XDG_CACHE_HOME, 'toolgate');
  return env.HOME && isAbsolute(env.HOME) ? join(env.HOME, '.cache', 'toolgate') : undefined;
}

/**
 * The cache directory (created if missing) that a sandbox keeps read-only whatever its policy lets the shell
 * write (`sandbox({readOnly})`): a command that could write it could plant a compiled policy or V8 code that
 * the next toolgate process outside the sandbox trusts. Also with the cache off here: another toolgate
 * process may read it. If it cannot be created, the sandboxed command (same user, fewer rights) cannot either.
 */
export function sandboxReadOnlyDirs(env: NodeJS.ProcessEnv): string[] {
  const dir = cacheDir({ ...env, TOOLGATE_CACHE: undefined });
  if (!dir) return [];
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    return [];
  }
  return [dir];
}

function entryPath(dir: string, key: CacheKey): string {
  return join(dir, 'policies', `${fnv64(JSON.stringify(key))}.json`);
}

/** What identifies a file's current content: its stat signature and a hash of its bytes. */
function fileSig(file: string): string | undefined {
  try {
    const st = statSync(file, { bigint: true });
    return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}:${fnv64(readFileSync(file))}`;
  } catch {
    return undefined;
  }
}

/** The files a compiled policy came from (`sources` also names in-file overlays as `file#agents.x`). */
function sourceFiles(policy: CompiledPolicy): string[] {
  return [...new Set(policy.sources.map((s) => s.replace(/#.*$/, '')).filter((s) => isAbsolute(s)))];
}

function read(dir: string, key: CacheKey, env: NodeJS.ProcessEnv): Compiled | undefined {
  let entry: Entry;
  try {
    entry = JSON.parse(readFileSync(entryPath(dir, key), 'utf8')) as Entry;
  } catch {
    return undefined;
  }
  // The entry's key as written (JSON of a key built by this same code): a string comparison, since the deep
  // comparison loads node:util's comparison module on every hook call. A spelling that differs is a miss.
  if (entry?.v !== 1 || JSON.stringify(entry.key) !== JSON.stringify(key) || !Array.isArray(entry.sources))
    return undefined;
  if (entry.sources.length === 0 || !entry.sources.some((s) => s.file === key.file)) return undefined;
  for (const s of entry.sources) if (fileSig(s.file) !== s.sig) return undefined;
  for (const [name, value] of Object.entries(entry.env)) if ((env[name] ?? null) !== value) return undefined;
  return { policy: entry.policy, settings: entry.settings };
}

/** An environment that records which variables the loader read (and whether it enumerated them all). */
function recordingEnv(env: NodeJS.ProcessEnv): {
  env: NodeJS.ProcessEnv;
  read: Map<string, string | null>;
  enumerated: () => boolean;
} {
  const read = new Map<string, string | null>();
  let enumerated = false;
  const proxy = new Proxy(env, {
    get(target, name) {
      if (typeof name === 'string') read.set(name, target[name] ?? null);
      return Reflect.get(target, name);
    },
    has(target, name) {
      if (typeof name === 'string') read.set(name, target[name] ?? null);
      return Reflect.has(target, name);
    },
    ownKeys(target) {
      enumerated = true;
      return Reflect.ownKeys(target);
    },
  });
  return { env: proxy, read, enumerated: () => enumerated };
}

function write(dir: string, key: CacheKey, compiled: Compiled, read: Map<string, string | null>): void {
  const sources: Entry['sources'] = [];
  for (const file of sourceFiles(compiled.policy)) {
    const sig = fileSig(file);
    if (sig === undefined) return;
    sources.push({ file, sig });
  }
  if (!sources.some((s) => s.file === key.file)) return;
  const entry: Entry = { v: 1, key, sources, env: Object.fromEntries(read), ...compiled };
  const text = JSON.stringify(entry);
  const back = JSON.parse(text) as Entry;
  if (
    !isDeepStrictEqual(back.policy, compiled.policy) ||
    !isDeepStrictEqual(back.settings, compiled.settings)
  )
    return;
  const path = entryPath(dir, key);
  mkdirSync(join(dir, 'policies'), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, path); // atomic: a concurrent hook reads the old entry or the new one, never half of one
}

/**
 * The compiled policy for `key`: from the cache when it is still valid, else from `compile` (then stored).
 * `compile` gets the environment to load with; it must use it for every variable it reads.
 */
export async function cachedCompile(
  key: CacheKey,
  env: NodeJS.ProcessEnv,
  compile: (env: NodeJS.ProcessEnv) => Promise<Compiled>,
): Promise<Compiled> {
  const dir = cacheDir(env);
  if (!dir) return compile(env);
  const hit = read(dir, key, env);
  if (hit) return hit;
  const recording = recordingEnv(env);
  const compiled = await compile(recording.env);
  if (!recording.enumerated()) {
    try {
      write(dir, key, compiled, recording.read);
    } catch {
      // a read-only or full disk only costs the next call the compile
    }
  }
  return compiled;
}
