import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { approvals, busStrategy } from '@toolgate/approvals';
import { type CallContext, createGuard, type Decision, type Guard } from '@toolgate/core';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type RedisApprovalBus,
  type RedisDesk,
  type RedisGrantStore,
  redisApprovalBus,
  redisDesk,
  redisGrantStore,
} from '../src/index.js';
import { promptPolicy } from './helpers/promptPolicy.js';
import { startRedis, type TestRedis } from './helpers/redisServer.js';

let redis: TestRedis;
let bus: RedisApprovalBus;
let store: RedisGrantStore;
let desk: RedisDesk;
let guard: Guard;
let root: string;
const errors: Error[] = [];
const warnings: { message: string }[] = [];

beforeAll(async () => {
  redis = await startRedis();
  const onError = (e: Error) => errors.push(e);
  bus = redisApprovalBus({ url: redis.url, commandTimeoutMs: 300, onError });
  store = redisGrantStore({ url: redis.url, commandTimeoutMs: 300, onError });
  desk = redisDesk({ url: redis.url, name: 'console', onError });
  await desk.ready();
  guard = createGuard({
    plugins: [promptPolicy(), approvals({ strategy: busStrategy(bus), store, timeoutMs: 1_500 })],
  });
  guard.events.on('approvals:warning', (w) => warnings.push(w));
  root = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-redis-outage-')));
});

afterAll(async () => {
  await Promise.all([bus.close(), store.close(), desk.close()]);
  await redis.stop();
  rmSync(root, { recursive: true, force: true });
});

const ctx = (sessionId: string): CallContext => ({
  sessionId,
  agentId: 'agent-1',
  cwd: root,
  workspace: root,
  home: root,
  env: {},
});
const write = (session: string, name: string): Promise<Decision> =>
  guard.check({ tool: 'write_file', args: { path: join(root, name) } }, ctx(session));

describe('Redis partitioned (stopped: connections open, nothing answers)', () => {
  it('waiting and new asks deny — never allow; once it answers again, asks work', async () => {
    const raisedIds: { id: string; session: string }[] = [];
    const sub = desk.events$.subscribe((e) => {
      if (e.type === 'raised') raisedIds.push({ id: e.item.id, session: e.item.sessionId });
    });
    const waiting = write('partition-1', 'p1.txt');
    const end = Date.now() + 5_000;
    while (desk.pending().length < 1 && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    expect(desk.pending().length).toBe(1);
    redis.pause();
    try {
      const d = await waiting;
      expect(d.action).toBe('deny');
      expect(d.reasons.map((r) => r.code)).toContain('PROMPT_TIMEOUT');
      // A new ask cannot be published: denied within the command timeout, naming Redis.
      const fresh = await write('partition-2', 'p2.txt');
      expect(fresh.action).toBe('deny');
      expect(JSON.stringify(fresh.reasons)).toMatch(
        /Redis at redis:\/\/127\.0\.0\.1:\d+\/? is unreachable or failing \(Command timed out/,
      );
    } finally {
      redis.resume();
    }
    // Events the desk gets once Redis answers again (the late question, if it arrives).
    await new Promise((r) => setTimeout(r, 300));
    sub.unsubscribe();
    // The question whose publish timed out may reach Redis once it answers again: it is withdrawn right
    // behind it (settled in its answer key), so no approver is left with a question nobody waits for.
    const check = new Redis(redis.url);
    try {
      const late = raisedIds.filter((r) => r.session === 'partition-2').map((r) => r.id);
      const deadline = Date.now() + 5_000;
      let settled: (string | null)[] = late.map(() => null);
      while (late.length > 0 && settled.some((v) => v === null) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        settled = await Promise.all(late.map((id) => check.get(`toolgate:answer:${id}`)));
      }
      for (const v of settled) expect(v).toMatch(/"cause":"(withdrawn|timeout)"/);
    } finally {
      await check.quit();
    }
    const answering = desk.events$.subscribe((e) => {
      if (e.type === 'raised' && e.item.sessionId === 'partition-3')
        void desk.respond(e.item.id, { approved: true, by: 'after-partition' });
    });
    try {
      let after: Decision | undefined;
      const until = Date.now() + 8_000;
      while (Date.now() < until) {
        after = await write('partition-3', 'p3.txt');
        if (after.action === 'allow') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(after?.action).toBe('allow');
    } finally {
      answering.unsubscribe();
    }
  });
});

describe('Redis killed and restarted', () => {
  it('waiting asks deny by their deadline with a clear error; nothing is allowed; new asks work after a restart', async () => {
    // Answer everything approved, to make any leak visible as an allow.
    const sub = desk.events$.subscribe(() => {});
    const waiting = Array.from({ length: 10 }, (_, i) => write(`outage-${i}`, `w${i}.txt`));
    const end = Date.now() + 5_000;
    const mine = () => desk.pending().filter((p) => p.sessionId.startsWith('outage-'));
    while (mine().length < 10 && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    expect(mine().length).toBe(10);
    const ids = mine().map((p) => p.id);
    await redis.kill();
    const started = Date.now();
    const decisions = await Promise.all(waiting);
    // No answer can come: all denied, by the deadline (1.5 s), naming Redis.
    for (const d of decisions) {
      expect(d.action).toBe('deny');
      expect(JSON.stringify(d.reasons)).toMatch(/Redis at redis:\/\/127\.0\.0\.1:\d+\/? is unreachable/);
    }
    expect(Date.now() - started).toBeLessThan(5_000);
    // The host did not crash: errors arrived as events.
    expect(errors.length).toBeGreaterThan(0);

    // While down: a new ask is denied at once (it cannot be published), never allowed.
    const down = await write('outage-down', 'down.txt');
    expect(down.action).toBe('deny');
    expect(JSON.stringify(down.reasons)).toMatch(/Redis/);
    // The grant store could not be read either: a warning, and still no allow.
    expect(warnings.some((w) => /cannot load approvals .* from the redis store/.test(w.message))).toBe(true);

    await redis.restart();
    // The desk reconnects by itself; an answer to an old question loses (its deadline passed, or Redis lost it).
    expect(await desk.respond(ids[0] as string, { approved: true, by: 'late' })).toBe(false);
    sub.unsubscribe();
    const answering = desk.events$.subscribe((e) => {
      if (e.type === 'raised') void desk.respond(e.item.id, { approved: true, by: 'after-restart' });
    });
    try {
      let after: Decision | undefined;
      const until = Date.now() + 8_000;
      // Reconnecting takes a retry interval or two.
      while (Date.now() < until) {
        after = await write('after-restart', 'ok.txt');
        if (after.action === 'allow') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(after?.action).toBe('allow');
      expect(JSON.stringify(after)).toContain('after-restart');
    } finally {
      answering.unsubscribe();
    }
  });
});
