import { createRequire } from 'node:module';

// Helpers for code that runs in a short-lived process (`toolgate hook`, once per tool call of an assistant),
// where loading a module the call never uses is most of what it costs.

/**
 * Milliseconds from an arbitrary start, monotonic. `performance.now()` does the same, but the first touch of
 * the `performance` global loads node:perf_hooks and nine internal modules (~0.5 ms of a hook call).
 */
export function monotonicMs(): number {
  const [s, ns] = process.hrtime();
  return s * 1e3 + ns / 1e6;
}

// Built-in modules resolve the same from anywhere: the base path only satisfies createRequire.
const requireBuiltin = createRequire('/');

/**
 * A Node built-in module loaded on first use, not at import: for code on the hook's path that needs one only
 * in a rare case (node:zlib, with the eleven stream modules behind it, for a .tgz archive: ~1 ms).
 *
 * @example
 * ```ts
 * const zlib = lazyBuiltin<typeof import('node:zlib')>('node:zlib');
 * zlib().gunzipSync(bytes);
 * ```
 */
export function lazyBuiltin<T>(id: `node:${string}`): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= requireBuiltin(id) as T;
    return loaded;
  };
}
