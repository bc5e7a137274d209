import type { StoredSession } from '@toolgate/core';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisGrantStore, redisGrantStore } from '../src/index.js';
import { startRedis, type TestRedis } from './helpers/redisServer.js';

let redis: TestRedis;
let a: RedisGrantStore;
let b: RedisGrantStore;
let raw: Redis;

beforeAll(async () => {
  redis = await startRedis();
  // Two stores = two machines: separate connections, separate memories of what they last saw.
  a = redisGrantStore({ url: redis.url });
  b = redisGrantStore({ url: redis.url });
  raw = new Redis(redis.url);
});

afterAll(async () => {
  await Promise.all([a.close(), b.close(), raw.quit()]);
  await redis.stop();
});

const grant = (path: string, extra: Record<string, unknown> = {}) => ({
  op: 'write',
  scope: 'subtree',
  path,
  createdAt: 1_700_000_000_000,
  by: 'tester',
  ...extra,
});

const session = (sessionId: string, over: Partial<StoredSession> = {}): StoredSession => ({
  version: 1,
  sessionId,
  cancelled: false,
  confirmations: 0,
  grants: [],
  ...over,
});

describe('redisGrantStore', () => {
  it('saves and loads a session (read-your-writes), and a missing one is undefined', async () => {
    expect(await a.load('nobody')).toBeUndefined();
    await a.save(session('rw', { confirmations: 2, grants: [grant('/ws/a', { usesLeft: 3 })] }));
    const loaded = await a.load('rw');
    expect(loaded).toEqual(session('rw', { confirmations: 2, grants: [grant('/ws/a', { usesLeft: 3 })] }));
    // Another machine reads the same thing at once.
    expect(await b.load('rw')).toEqual(loaded);
    expect(await raw.type('toolgate:session:rw')).toBe('hash');
  });

  it('concurrent saves from two machines: cancelled is never lost and the higher confirmations wins', async () => {
    const ids = Array.from({ length: 40 }, (_, i) => `race-${i}`);
    await Promise.all(
      ids.flatMap((id, i) => [
        // Which one lands first varies; the result must not.
        a.save(session(id, { cancelled: true, confirmations: 2 + (i % 3) })),
        b.save(session(id, { cancelled: false, confirmations: 7 })),
        b.save(session(id, { cancelled: false, confirmations: 1 })),
      ]),
    );
    for (const id of ids) {
      const s = await b.load(id);
      expect(s?.cancelled).toBe(true);
      expect(s?.confirmations).toBe(7);
    }
  });

  it('twin: nobody cancelled ⇒ not cancelled; confirmations never go down', async () => {
    await Promise.all([
      a.save(session('twin', { confirmations: 4 })),
      b.save(session('twin', { confirmations: 9 })),
    ]);
    await a.save(session('twin', { confirmations: 3 }));
    const s = await a.load('twin');
    expect(s?.cancelled).toBe(false);
    expect(s?.confirmations).toBe(9);
  });

  it('grants made on two machines at once are both kept (union by identity)', async () => {
    await Promise.all([
      a.save(session('union', { grants: [grant('/ws/from-a')] })),
      b.save(session('union', { grants: [grant('/ws/from-b')] })),
    ]);
    const paths = (await a.load('union'))?.grants.map((g) => g.path).sort();
    expect(paths).toEqual(['/ws/from-a', '/ws/from-b']);
  });

  it('a limited grant used once on each machine at once has two uses fewer, not one', async () => {
    await a.save(session('uses', { grants: [grant('/ws/limited', { usesLeft: 3 })] }));
    const [sa, sb] = await Promise.all([a.load('uses'), b.load('uses')]);
    expect(sa?.grants[0]?.usesLeft).toBe(3);
    expect(sb?.grants[0]?.usesLeft).toBe(3);
    await Promise.all([
      a.save(session('uses', { grants: [grant('/ws/limited', { usesLeft: 2 })] })),
      b.save(session('uses', { grants: [grant('/ws/limited', { usesLeft: 2 })] })),
    ]);
    expect((await a.load('uses'))?.grants[0]?.usesLeft).toBe(1);
    // Both use it again: spent, so it is gone — not at -1, not resurrected.
    await b.load('uses');
    await Promise.all([
      a.save(session('uses', { grants: [grant('/ws/limited', { usesLeft: 0 })] })),
      b.save(session('uses', { grants: [] })),
    ]);
    expect((await a.load('uses'))?.grants).toEqual([]);
  });

  it('a grant one machine removed (expired, spent) is not brought back by another that still remembers it', async () => {
    await a.save(session('removed', { grants: [grant('/ws/old'), grant('/ws/keep')] }));
    await b.load('removed');
    await a.save(session('removed', { grants: [grant('/ws/keep')] }));
    // b saves its (stale) picture with both grants unchanged.
    await b.save(session('removed', { grants: [grant('/ws/old'), grant('/ws/keep')] }));
    expect((await a.load('removed'))?.grants.map((g) => g.path)).toEqual(['/ws/keep']);
  });

  it('a machine that forgot what it saw (no base) can only lower a grant’s uses', async () => {
    await a.save(session('nobase', { grants: [grant('/ws/l', { usesLeft: 2 })] }));
    const fresh = redisGrantStore({ url: redis.url });
    try {
      await fresh.save(session('nobase', { grants: [grant('/ws/l', { usesLeft: 5 })] }));
      expect((await a.load('nobase'))?.grants[0]?.usesLeft).toBe(2);
      await fresh.save(session('nobase', { grants: [grant('/ws/l', { usesLeft: 1 })] }));
      expect((await a.load('nobase'))?.grants[0]?.usesLeft).toBe(1);
    } finally {
      await fresh.close();
    }
  });

  it('watch tells another machine about a save', async () => {
    const seen: StoredSession[] = [];
    const stop = b.watch?.('watched', (s) => seen.push(s));
    // Give the subscription a moment to be in place (a real SUBSCRIBE round trip).
    await new Promise((r) => setTimeout(r, 100));
    await a.save(session('watched', { grants: [grant('/ws/w')] }));
    const deadline = Date.now() + 5_000;
    while (seen.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    stop?.();
    expect(seen[0]?.grants.map((g) => g.path)).toEqual(['/ws/w']);
  });

  it('a hash that is not a toolgate session is an error naming the key, never grants', async () => {
    await raw.hset('toolgate:session:alien', { version: '2', sessionId: 'alien' });
    await expect(a.load('alien')).rejects.toThrow(/toolgate:session:alien is not a toolgate session/);
    await raw.hset('toolgate:session:other', { version: '1', sessionId: 'someone-else' });
    await expect(a.load('other')).rejects.toThrow(/sessionId is not this session/);
  });

  it('bad options and input fail with the field named', () => {
    expect(() => redisGrantStore({} as never)).toThrow(/client\/url must be exactly one of client, url/);
    expect(() => redisGrantStore({ url: 'http://x' })).toThrow(/url must be a redis:\/\/ or rediss:\/\/ URL/);
    expect(() => redisGrantStore({ url: redis.url, sessionTtlMs: -1 })).toThrow(/sessionTtlMs/);
    expect(() => redisGrantStore({ url: redis.url, bogus: 1 } as never)).toThrow(/bogus must be one of/);
    return expect(a.load('' as string)).rejects.toThrow(/sessionId must be a non-empty string/);
  });

  it('Redis down: load and save reject within the command timeout, naming Redis', async () => {
    const dead = redisGrantStore({ url: 'redis://127.0.0.1:1', commandTimeoutMs: 300 });
    try {
      await expect(dead.load('x')).rejects.toThrow(
        /cannot load session "x": Redis at redis:\/\/127\.0\.0\.1:1/,
      );
      await expect(dead.save(session('x'))).rejects.toThrow(/cannot save session "x": Redis/);
    } finally {
      await dead.close();
    }
  });
});
