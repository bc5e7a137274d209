import { type FSWatcher, watch } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { PolicySource } from '@toolgate/core';

/** One version of a policy: what the host runs and the hash every decision's audit record carries. */
export interface PolicyVersion<P> {
  policy: P;
  hash: string;
}

/** A policy that failed to load: the host keeps `kept` (the last good version) and says so. */
export interface PolicyLoadError {
  source: string;
  error: Error;
  /** The hash of the version still in use. */
  kept: string;
  message: string;
}

/** A PolicySource that watches something and can be stopped. */
export interface WatchedPolicySource<P> extends PolicySource<P> {
  /** Told of every failed reload (the last good version stays current). */
  onError(listener: (e: PolicyLoadError) => void): () => void;
  /** Re-reads now (what a change does after its debounce); resolves once done. */
  reload(): Promise<void>;
  close(): void;
}

export interface FilePolicySourceOptions<P> {
  /** Loads and compiles the policy (the whole guard, for a host); runs off the decision path. */
  load: () => Promise<PolicyVersion<P>>;
  /** The version already loaded at start (else `load()` runs once now and must succeed). */
  initial?: PolicyVersion<P>;
  /** More files whose change means a reload (overlays). */
  also?: readonly string[];
  /** Quiet time after the last change before reloading (default 100 ms): an editor's save is several writes. */
  debounceMs?: number;
  /** Also compare the files' stat this often (default 1 000 ms): fs.watch misses changes on some file systems. */
  pollMs?: number;
}

/**
 * Shared by the file and HTTP sources: holds the current version, runs one load at a time, keeps the last
 * good version when a load fails and tells error listeners, and tells subscribers of each new hash.
 */
export function versionHolder<P>(name: string, initial: PolicyVersion<P>) {
  let current = initial;
  const subscribers = new Set<(next: PolicyVersion<P>) => void>();
  const errorListeners = new Set<(e: PolicyLoadError) => void>();
  let running: Promise<void> | undefined;
  let again = false;
  const apply = async (load: () => Promise<PolicyVersion<P> | undefined>) => {
    let next: PolicyVersion<P> | undefined;
    try {
      next = await load();
    } catch (error) {
      const e = error instanceof Error ? error : new Error(String(error));
      const report: PolicyLoadError = {
        source: name,
        error: e,
        kept: current.hash,
        message: `policy ${name} failed to load; still enforcing the last good version ${current.hash}: ${e.message}`,
      };
      for (const l of [...errorListeners]) {
        try {
          l(report);
        } catch {
          /* a listener's failure is its own */
        }
      }
      return;
    }
    if (next === undefined || next.hash === current.hash) return;
    current = next;
    for (const s of [...subscribers]) {
      try {
        s(next);
      } catch {
        /* a subscriber's failure is its own */
      }
    }
  };
  return {
    current: () => current,
    subscribe(onChange: (next: PolicyVersion<P>) => void) {
      subscribers.add(onChange);
      return () => void subscribers.delete(onChange);
    },
    onError(listener: (e: PolicyLoadError) => void) {
      errorListeners.add(listener);
      return () => void errorListeners.delete(listener);
    },
    /** Runs `load` now, or once more after the load in progress (never two at once). */
    run(load: () => Promise<PolicyVersion<P> | undefined>): Promise<void> {
      if (running) {
        again = true;
        return running;
      }
      running = (async () => {
        do {
          again = false;
          await apply(load);
        } while (again);
      })().finally(() => {
        running = undefined;
      });
      return running;
    },
  };
}

type Stamp = string;

async function stampOf(file: string): Promise<Stamp> {
  try {
    const s = await stat(file);
    return `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
  } catch (error) {
    return `missing:${(error as NodeJS.ErrnoException).code ?? ''}`;
  }
}

/**
 * A policy file watched for changes: `fs.watch` on its directory (an editor or `git checkout` replaces the
 * file by a rename, which a watch on the file itself would miss) plus a periodic stat comparison (network
 * and container file systems do not always report changes). After `debounceMs` of quiet the policy is
 * loaded and compiled by `load` — in the background, never on a decision's path — and subscribers get the
 * new version only when its hash differs. A version that fails to load changes nothing: the last good one
 * stays current and every `onError` listener is told (the CLI prints it to stderr).
 *
 * @example
 * ```ts
 * const source = await filePolicySource('/etc/toolgate/policy.yaml', {
 *   load: async () => {
 *     const policy = await loadPolicy({ file: '/etc/toolgate/policy.yaml' });
 *     return { policy, hash: policy.hash };
 *   },
 * });
 * source.subscribe(({ hash }) => console.error(`policy now ${hash}`));
 * ```
 */
export async function filePolicySource<P>(
  file: string,
  options: FilePolicySourceOptions<P>,
): Promise<WatchedPolicySource<P>> {
  if (typeof file !== 'string' || file === '') throw new Error('filePolicySource: file must name a file');
  if (typeof options?.load !== 'function') throw new Error('filePolicySource: load must be a function');
  const debounceMs = options.debounceMs ?? 100;
  const pollMs = options.pollMs ?? 1_000;
  const files = [resolve(file), ...(options.also ?? []).map((f) => resolve(f))];
  const initial = options.initial ?? (await options.load());
  const holder = versionHolder(file, initial);
  const stamps = new Map<string, Stamp>();
  for (const f of files) stamps.set(f, await stampOf(f));

  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const reload = () => holder.run(options.load);
  const changed = () => {
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      void reload();
    }, debounceMs);
    timer.unref?.();
  };

  const watchers: FSWatcher[] = [];
  for (const dir of new Set(files.map((f) => dirname(f)))) {
    const names = new Set(files.filter((f) => dirname(f) === dir).map((f) => basename(f)));
    try {
      const w = watch(dir, { persistent: false }, (_event, name) => {
        if (name === null || names.has(String(name))) changed();
      });
      // A watcher that fails later (the directory removed) leaves the stat poll in charge.
      w.on('error', () => w.close());
      watchers.push(w);
    } catch {
      /* no inotify (limits, some file systems): the stat poll below still sees changes */
    }
  }
  const poll = setInterval(async () => {
    for (const f of files) {
      const s = await stampOf(f);
      if (s !== stamps.get(f)) {
        stamps.set(f, s);
        changed();
      }
    }
  }, pollMs);
  poll.unref?.();

  return {
    current: holder.current,
    subscribe: holder.subscribe,
    onError: holder.onError,
    reload,
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      clearInterval(poll);
      for (const w of watchers) w.close();
    },
  };
}
