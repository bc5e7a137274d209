import { ToolgateError } from '@toolgate/core';
import { Redis, type RedisOptions } from 'ioredis';

/** How a store reaches Redis: a client you own (it is duplicated for subscriptions), or a URL. */
export interface RedisConnectionOptions {
  /** An ioredis client. The store never closes it; it adds an `error` listener so no error event can crash the host. */
  client?: Redis;
  /** `redis://[:password@]host:port/db` (or `rediss://`). The store opens and closes its own connections. */
  url?: string;
  /** Key and channel prefix (default `toolgate:`). */
  prefix?: string;
  /**
   * A command that gets no reply within this many ms fails (default 2 000): a partitioned Redis costs a
   * bounded wait and then a denial, never a hang.
   */
  commandTimeoutMs?: number;
  /** Told about connection errors (default: nothing; the store keeps the last one for its messages). */
  onError?: (error: Error) => void;
}

/** One role's connection, with what the store needs to word its failures. */
export interface Connection {
  readonly redis: Redis;
  /** The last connection error, for messages ("Redis at … is unreachable: ECONNREFUSED"). */
  lastError(): string | undefined;
  /** Where it connects (never with a password). */
  readonly where: string;
  close(): Promise<void>;
}

export function invalid(where: string, field: string, value: unknown, expected: string): ToolgateError {
  let shown: string;
  try {
    shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
  } catch {
    shown = typeof value;
  }
  return new ToolgateError(
    'TOOLGATE_ERR_INVALID_OPTIONS',
    `${where}: ${field} must be ${expected}, got ${shown}`,
    { field },
  );
}

const KNOWN = new Set(['client', 'url', 'prefix', 'commandTimeoutMs', 'onError']);

/** Checks the connection options every factory of this package shares; returns the prefix. */
export function checkConnectionOptions(
  where: string,
  options: RedisConnectionOptions,
  extra: readonly string[] = [],
): string {
  if (options === null || typeof options !== 'object') throw invalid(where, 'options', options, 'an object');
  for (const key of Object.keys(options))
    if (!KNOWN.has(key) && !extra.includes(key))
      throw invalid(where, key, 'an unknown option', `one of ${[...KNOWN, ...extra].join(', ')}`);
  const hasClient = options.client !== undefined;
  const hasUrl = options.url !== undefined;
  if (hasClient === hasUrl)
    throw invalid(where, 'client/url', 'both or neither', 'exactly one of client, url');
  if (hasUrl && (typeof options.url !== 'string' || !/^rediss?:\/\//.test(options.url)))
    throw invalid(where, 'url', options.url, 'a redis:// or rediss:// URL');
  if (
    hasClient &&
    (typeof options.client?.duplicate !== 'function' || typeof options.client.on !== 'function')
  )
    throw invalid(where, 'client', options.client, 'an ioredis client');
  const prefix = options.prefix ?? 'toolgate:';
  if (typeof prefix !== 'string') throw invalid(where, 'prefix', prefix, 'a string');
  const t = options.commandTimeoutMs;
  if (t !== undefined && !(typeof t === 'number' && Number.isFinite(t) && t > 0))
    throw invalid(where, 'commandTimeoutMs', t, 'a positive number of milliseconds');
  if (options.onError !== undefined && typeof options.onError !== 'function')
    throw invalid(where, 'onError', options.onError, 'a function');
  return prefix;
}

function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    u.username = '';
    return u.toString();
  } catch {
    return 'redis';
  }
}

/**
 * Opens one connection for a role (commands, or a subscriber). Retries forever with a capped backoff, so a
 * restarted Redis is picked up without a restart of the host; each command is bounded by
 * `commandTimeoutMs`, so a Redis that is down costs a bounded wait and an error, never a hang.
 */
export function connect(options: RedisConnectionOptions, role: string): Connection {
  let last: string | undefined;
  const base: RedisOptions = {
    commandTimeout: options.commandTimeoutMs ?? 2_000,
    // A command issued while disconnected waits in the offline queue for at most one reconnect attempt,
    // then fails: the caller turns that into a denial.
    maxRetriesPerRequest: 1,
    retryStrategy: (times: number) => Math.min(50 * times, 1_000),
    connectionName: `toolgate-${role}`,
  };
  const owned = options.client === undefined;
  const redis = owned ? new Redis(options.url as string, base) : (options.client as Redis).duplicate(base);
  const where = owned
    ? redactedUrl(options.url as string)
    : `${redis.options.host ?? 'localhost'}:${redis.options.port ?? 6379}`;
  // An EventEmitter's unhandled 'error' throws: without this listener a Redis restart would kill the host.
  redis.on('error', (error: Error) => {
    last = error.message;
    try {
      options.onError?.(error);
    } catch {
      /* a failing reporter must not take the host down */
    }
  });
  redis.on('ready', () => {
    last = undefined;
  });
  return {
    redis,
    where,
    lastError: () => last,
    async close() {
      try {
        await redis.quit();
      } catch {
        redis.disconnect();
      }
    },
  };
}

/** `redis.status === 'ready'`, for messages and reconnect logic. */
export function isReady(c: Connection): boolean {
  return c.redis.status === 'ready';
}

/** The reason a Redis operation failed, in words a denial can carry. */
export function unreachable(c: Connection, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const last = c.lastError();
  return `Redis at ${c.where} is unreachable or failing (${message}${last && last !== message ? `; last connection error: ${last}` : ''})`;
}
