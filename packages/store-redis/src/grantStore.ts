import { createHash } from 'node:crypto';
import { type GrantStore, LruMap, type StoredSession } from '@toolgate/core';
import {
  type Connection,
  checkConnectionOptions,
  connect,
  invalid,
  type RedisConnectionOptions,
  unreachable,
} from './connection.js';
import { MERGE_SESSION_LUA } from './mergeSessionScript.js';

export interface RedisGrantStoreOptions extends RedisConnectionOptions {
  /** Sessions not saved for this long expire from Redis (default: never; a cancellation then lasts forever). */
  sessionTtlMs?: number;
}

/** A GrantStore on Redis, with what a host needs to shut it down. */
export interface RedisGrantStore extends GrantStore {
  close(): Promise<void>;
}

type Grant = Record<string, unknown>;

/** What this process last saw in the store per session: grant id → remaining uses (null: unlimited). */
type Known = Map<string, number | null>;

/** A grant's identity: everything but its remaining uses (which change), hashed to a short field name. */
function grantId(g: Grant): string {
  const { usesLeft: _u, ...rest } = g;
  const canonical = JSON.stringify(
    Object.keys(rest)
      .sort()
      .map((k) => [k, rest[k]]),
  );
  return createHash('sha256').update(canonical).digest('hex').slice(0, 32);
}

function usesOf(g: Grant): number | null {
  return typeof g.usesLeft === 'number' ? g.usesLeft : null;
}

function pairs(flat: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (!Array.isArray(flat)) return out;
  for (let i = 0; i + 1 < flat.length; i += 2) out.set(String(flat[i]), String(flat[i + 1]));
  return out;
}

function fromHash(
  sessionId: string,
  hash: Map<string, string>,
  key: string,
): { session: StoredSession; known: Known } | undefined {
  if (hash.size === 0) return undefined;
  const bad = (what: string) =>
    new Error(`Redis key ${key} is not a toolgate session (${what}); the session starts with no grants`);
  if (hash.get('version') !== '1') throw bad(`version ${JSON.stringify(hash.get('version'))}`);
  if (hash.get('sessionId') !== sessionId) throw bad('its sessionId is not this session');
  const confirmations = Number(hash.get('confirmations') ?? '0');
  if (!Number.isInteger(confirmations) || confirmations < 0) throw bad('confirmations is not a count');
  const grants: Grant[] = [];
  const known: Known = new Map();
  for (const [field, value] of hash) {
    if (!field.startsWith('g:')) continue;
    const id = field.slice(2);
    let grant: unknown;
    try {
      grant = JSON.parse(value);
    } catch {
      throw bad(`grant ${id} is not JSON`);
    }
    if (grant === null || typeof grant !== 'object' || Array.isArray(grant))
      throw bad(`grant ${id} is not an object`);
    const uses = hash.get(`u:${id}`);
    const g = { ...(grant as Grant) };
    if (uses !== undefined) {
      const n = Number(uses);
      if (!Number.isInteger(n)) throw bad(`grant ${id} has uses ${JSON.stringify(uses)}`);
      if (n <= 0) continue;
      g.usesLeft = n;
    }
    grants.push(g);
    known.set(id, usesOf(g));
  }
  return {
    session: {
      version: 1,
      sessionId,
      cancelled: hash.get('cancelled') === '1',
      confirmations,
      grants,
    },
    known,
  };
}

/**
 * Sessions' grants in Redis hashes (`<prefix>session:<id>`), for approvals shared by a fleet:
 * `approvals({store: redisGrantStore({url})})`. `save` merges atomically (a Lua script): `cancelled: true`
 * is never lost, the higher `confirmations` wins, grants are merged by identity and their uses counted
 * down, never reset. Read-your-writes: one connection carries a machine's saves and loads in order, and
 * Redis has one primary. `watch` is told of every save of a session by any machine (pub/sub).
 *
 * Failures reject with an error that names Redis and why; the approvals plugin then treats the session as
 * having no grants (its prompts go to the approver) and never as allowed.
 *
 * @example
 * ```ts
 * import { approvals } from '@toolgate/approvals';
 * import { redisApprovalBus, redisGrantStore } from '@toolgate/store-redis';
 * import { busStrategy } from '@toolgate/approvals';
 * const url = 'redis://127.0.0.1:6379';
 * const plugin = approvals({ strategy: busStrategy(redisApprovalBus({ url })), store: redisGrantStore({ url }) });
 * ```
 */
export function redisGrantStore(options: RedisGrantStoreOptions): RedisGrantStore {
  const prefix = checkConnectionOptions('redisGrantStore', options, ['sessionTtlMs']);
  const ttl = options.sessionTtlMs ?? 0;
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 0)
    throw invalid('redisGrantStore', 'sessionTtlMs', options.sessionTtlMs, 'a positive integer number of ms');
  const { sessionTtlMs: _t, ...connection } = options;
  const commands: Connection = connect(connection, 'grants');
  let subscriber: Connection | undefined;
  const watchers = new Map<string, Set<(s: StoredSession) => void>>();
  // What this machine last saw per session (the base of its next save), for the sessions it used lately; a
  // session dropped from here saves without a base: grants are only added, uses only lowered.
  const known = new LruMap<string, Known>(16_384);
  const keyOf = (id: string) => `${prefix}session:${id}`;
  const channelOf = (id: string) => `${prefix}session-changed:${id}`;
  const checkId = (id: unknown): string => {
    if (typeof id !== 'string' || id === '')
      throw invalid('redisGrantStore', 'sessionId', id, 'a non-empty string');
    return id;
  };

  const read = async (sessionId: string): Promise<StoredSession | undefined> => {
    let flat: unknown;
    try {
      flat = await commands.redis.call('HGETALL', keyOf(sessionId));
    } catch (error) {
      throw new Error(`cannot load session ${JSON.stringify(sessionId)}: ${unreachable(commands, error)}`);
    }
    const parsed = fromHash(sessionId, pairs(flat), keyOf(sessionId));
    if (parsed === undefined) {
      known.delete(sessionId);
      return undefined;
    }
    known.set(sessionId, parsed.known);
    return parsed.session;
  };

  return {
    name: 'redis',
    load: (sessionId) => {
      try {
        return read(checkId(sessionId));
      } catch (error) {
        return Promise.reject(error);
      }
    },
    async save(session) {
      if (session === null || typeof session !== 'object')
        throw invalid('redisGrantStore.save', 'session', session, 'a StoredSession');
      const sessionId = checkId(session.sessionId);
      if (!Array.isArray(session.grants))
        throw invalid('redisGrantStore.save', 'grants', session.grants, 'an array');
      const base: Known = known.get(sessionId) ?? new Map();
      const add: [string, string, number][] = [];
      const use: [string, number][] = [];
      const present = new Set<string>();
      for (const grant of session.grants) {
        const id = grantId(grant);
        present.add(id);
        const uses = usesOf(grant);
        if (!base.has(id)) {
          const { usesLeft: _u, ...rest } = grant;
          add.push([id, JSON.stringify(rest), uses ?? -1]);
          continue;
        }
        const before = base.get(id);
        if (typeof before === 'number' && uses !== null && uses < before) use.push([id, before - uses]);
      }
      const del = [...base.keys()].filter((id) => !present.has(id));
      let flat: unknown;
      try {
        flat = await commands.redis.eval(
          MERGE_SESSION_LUA,
          1,
          keyOf(sessionId),
          sessionId,
          session.cancelled === true ? '1' : '0',
          String(Number.isInteger(session.confirmations) ? session.confirmations : 0),
          JSON.stringify({ add, use, del }),
          channelOf(sessionId),
          String(ttl),
        );
      } catch (error) {
        throw new Error(`cannot save session ${JSON.stringify(sessionId)}: ${unreachable(commands, error)}`);
      }
      const parsed = fromHash(sessionId, pairs(flat), keyOf(sessionId));
      if (parsed) known.set(sessionId, parsed.known);
    },
    watch(sessionId, onChange) {
      const id = checkId(sessionId);
      if (typeof onChange !== 'function')
        throw invalid('redisGrantStore.watch', 'onChange', onChange, 'a function');
      if (!subscriber) {
        subscriber = connect(connection, 'grants-watch');
        subscriber.redis.on('message', (channel: string, message: string) => {
          const set = watchers.get(message);
          if (!set || channel !== channelOf(message)) return;
          read(message).then(
            (s) => {
              if (s)
                for (const fn of [...set]) {
                  try {
                    fn(s);
                  } catch {
                    /* a watcher's error is its own */
                  }
                }
            },
            () => {
              /* the next prompt of the session reloads it anyway */
            },
          );
        });
      }
      let set = watchers.get(id);
      if (!set) {
        set = new Set();
        watchers.set(id, set);
        subscriber.redis.subscribe(channelOf(id)).catch(() => {
          /* resubscribed by ioredis on reconnect */
        });
      }
      set.add(onChange);
      return () => {
        const s = watchers.get(id);
        if (!s) return;
        s.delete(onChange);
        if (s.size === 0) {
          watchers.delete(id);
          subscriber?.redis.unsubscribe(channelOf(id)).catch(() => {});
        }
      };
    },
    async close() {
      await Promise.all([commands.close(), subscriber?.close()]);
    },
  };
}
