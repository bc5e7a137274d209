import { describeThrown } from './describeThrown.js';

/** A plugin broke its contract on a hook: threw, rejected, timed out, or returned something invalid. */
export class PluginFailure extends Error {
  readonly plugin: string;
  readonly hook: string;
  readonly kind: 'threw' | 'timeout' | 'invalid';

  constructor(
    plugin: string,
    hook: string,
    kind: 'threw' | 'timeout' | 'invalid',
    detail: string,
    cause?: unknown,
  ) {
    super(
      `plugin "${plugin}" ${kind === 'timeout' ? 'timed out' : kind === 'invalid' ? 'returned an invalid value' : 'failed'} in hook ${hook}: ${detail}`,
      cause === undefined ? undefined : { cause },
    );
    this.name = 'PluginFailure';
    this.plugin = plugin;
    this.hook = hook;
    this.kind = kind;
  }
}

export function toPluginFailure(plugin: string, hook: string, error: unknown): PluginFailure {
  if (isPluginFailure(error)) return error;
  return new PluginFailure(plugin, hook, 'threw', describeThrown(error), error);
}

/** Races `promise` against a timer; the timer is cleared either way so it never keeps the process alive. */
export function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  if (!Number.isFinite(ms)) return promise;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(onTimeout()), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** `instanceof` itself throws on a revoked proxy: a thrown value is never trusted to be inspectable. */
function isPluginFailure(value: unknown): value is PluginFailure {
  try {
    return value instanceof PluginFailure;
  } catch {
    return false;
  }
}
