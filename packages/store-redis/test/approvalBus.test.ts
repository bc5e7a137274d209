import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { approvals, busStrategy, type DeskEvent } from '@toolgate/approvals';
import {
  type ApprovalAnswerMessage,
  type ApprovalMessage,
  type CallContext,
  createGuard,
} from '@toolgate/core';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisApprovalBus, type RedisDesk, redisApprovalBus, redisDesk } from '../src/index.js';
import { promptPolicy } from './helpers/promptPolicy.js';
import { startRedis, type TestRedis } from './helpers/redisServer.js';

let redis: TestRedis;
let askerA: RedisApprovalBus;
let askerB: RedisApprovalBus;
let desk1: RedisDesk;
let desk2: RedisDesk;
let raw: Redis;
let root: string;

beforeAll(async () => {
  redis = await startRedis();
  askerA = redisApprovalBus({ url: redis.url });
  askerB = redisApprovalBus({ url: redis.url });
  desk1 = redisDesk({ url: redis.url, name: 'console-1' });
  desk2 = redisDesk({ url: redis.url, name: 'console-2' });
  await Promise.all([desk1.ready(), desk2.ready()]);
  raw = new Redis(redis.url);
  root = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-redis-bus-')));
});

afterAll(async () => {
  await Promise.all([askerA.close(), askerB.close(), desk1.close(), desk2.close(), raw.quit()]);
  await redis.stop();
  rmSync(root, { recursive: true, force: true });
});

const question = (id: string, ms = 10_000): ApprovalMessage => ({
  id,
  sessionId: 's',
  agentId: 'agent',
  tool: 'write_file',
  summary: `write ${id}`,
  deadline: Date.now() + ms,
});

const until = async (cond: () => boolean, ms = 5_000) => {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
  return cond();
};

const ctx = (sessionId: string): CallContext => ({
  sessionId,
  agentId: 'agent-1',
  cwd: root,
  workspace: root,
  home: root,
  env: {},
});

describe('redisApprovalBus + redisDesk', () => {
  it('two askers, two answerers racing: every question gets exactly one answer, the one that won', async () => {
    const ids = Array.from({ length: 60 }, (_, i) => `race-${i}`);
    const got = new Map<string, ApprovalAnswerMessage[]>();
    await Promise.all(
      ids.map((id, i) => {
        const bus = i % 2 === 0 ? askerA : askerB;
        bus.answers(id, (a) => got.set(id, [...(got.get(id) ?? []), a]));
        return bus.publish(question(id));
      }),
    );
    expect(await until(() => ids.every((id) => desk1.pending().some((p) => p.id === id)))).toBe(true);
    // Both desks answer every question at once, with different answers; each desk answers twice.
    const wins = await Promise.all(
      ids.map(async (id) => {
        const results = await Promise.all([
          desk1.respond(id, { approved: true, by: 'console-1' }),
          desk2.respond(id, { approved: false, by: 'console-2', reason: 'no' }),
          desk1.respond(id, { approved: true, by: 'console-1' }),
          desk2.respond(id, { approved: false, by: 'console-2' }),
        ]);
        return results;
      }),
    );
    expect(await until(() => got.size === ids.length)).toBe(true);
    await new Promise((r) => setTimeout(r, 100)); // a duplicate would arrive by now
    ids.forEach((id, i) => {
      const results = wins[i] as boolean[];
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results.indexOf(true) % 2 === 0 ? 'console-1' : 'console-2';
      expect(got.get(id)).toHaveLength(1);
      expect(got.get(id)?.[0]?.by).toBe(winner);
      expect(got.get(id)?.[0]?.approved).toBe(winner === 'console-1');
    });
    expect(desk1.pending().filter((p) => ids.includes(p.id))).toEqual([]);
    expect(desk2.pending().filter((p) => ids.includes(p.id))).toEqual([]);
  });

  it('a desk that connects later sees what is waiting; an answer at another desk removes it everywhere', async () => {
    await askerA.publish(question('late-1'));
    await askerB.publish(question('late-2'));
    const late = redisDesk({ url: redis.url, name: 'late' });
    try {
      const events: DeskEvent[] = [];
      late.events$.subscribe((e) => events.push(e));
      await late.ready();
      expect(late.pending().map((p) => p.id)).toEqual(expect.arrayContaining(['late-1', 'late-2']));
      expect(await desk1.respond('late-1', { approved: true, by: 'console-1' })).toBe(true);
      expect(await until(() => !late.pending().some((p) => p.id === 'late-1'))).toBe(true);
      expect(events).toContainEqual(
        expect.objectContaining({
          type: 'settled',
          id: 'late-1',
          cause: 'answered',
          approved: true,
          by: 'console-1',
        }),
      );
      expect(late.pending().map((p) => p.id)).toContain('late-2');
      expect(await late.respond('late-1', { approved: false, by: 'late' })).toBe(false);
    } finally {
      await late.close();
    }
  });

  it('an answer after the deadline is refused, and the asker denies at its deadline (PROMPT_TIMEOUT)', async () => {
    const guard = createGuard({
      plugins: [promptPolicy(), approvals({ strategy: busStrategy(askerA), timeoutMs: 400 })],
    });
    const seen: DeskEvent[] = [];
    desk1.events$.subscribe((e) => seen.push(e));
    const decision = guard.check(
      { tool: 'write_file', args: { path: join(root, 'x.txt') } },
      ctx('deadline'),
    );
    expect(await until(() => seen.some((e) => e.type === 'raised'))).toBe(true);
    const raised = seen.find((e) => e.type === 'raised');
    const id = raised?.type === 'raised' ? raised.item.id : '';
    const d = await decision;
    expect(d.action).toBe('deny');
    expect(d.reasons.map((r) => r.code)).toContain('PROMPT_TIMEOUT');
    expect(await desk1.respond(id, { approved: true, by: 'too-late' })).toBe(false);
    expect(await desk2.respond(id, { approved: true, by: 'too-late' })).toBe(false);
    expect(
      await until(() => seen.some((e) => e.type === 'settled' && e.id === id && e.cause === 'timeout')),
    ).toBe(true);
  });

  it('twin: answered in time through Redis, the call is allowed with the answer’s author; a session grant answers the next call without a question', async () => {
    const guard = createGuard({
      plugins: [promptPolicy(), approvals({ strategy: busStrategy(askerB), timeoutMs: 5_000 })],
    });
    const sub = desk2.events$.subscribe((e) => {
      if (e.type === 'raised' && e.item.sessionId === 'twin')
        void desk2.respond(e.item.id, { approved: true, by: 'alice', grant: 'directory' });
    });
    try {
      const d = await guard.check({ tool: 'write_file', args: { path: join(root, 'a.txt') } }, ctx('twin'));
      expect(d.action).toBe('allow');
      expect(JSON.stringify(d)).toContain('alice');
      const before = desk2.pending().length;
      const next = await guard.check(
        { tool: 'write_file', args: { path: join(root, 'b.txt') } },
        ctx('twin'),
      );
      expect(next.action).toBe('allow');
      expect(desk2.pending().length).toBe(before);
    } finally {
      sub.unsubscribe();
    }
  });

  it('the item a desk shows carries every path with its rule and reason (the DeskItem)', async () => {
    const guard = createGuard({
      plugins: [
        promptPolicy(),
        approvals({ strategy: busStrategy(askerA, { origin: 'gw-a' }), timeoutMs: 2_000 }),
      ],
    });
    const raised = new Promise<DeskEvent>((resolve) => {
      const sub = desk1.events$.subscribe((e) => {
        if (e.type === 'raised' && e.item.sessionId === 'detail') {
          sub.unsubscribe();
          resolve(e);
        }
      });
    });
    const decision = guard.check({ tool: 'write_file', args: { path: join(root, 'd.txt') } }, ctx('detail'));
    const e = await raised;
    if (e.type !== 'raised') throw new Error('not raised');
    expect(e.item.origin).toBe('gw-a');
    expect(e.item.items[0]).toMatchObject({
      op: 'write',
      realPath: join(root, 'd.txt'),
      code: 'PATH_PROMPT',
    });
    expect(e.item.items[0]?.rule?.pattern).toBe('/**');
    expect(await desk1.respond(e.item.id, { approved: false, by: 'bob', reason: 'not now' })).toBe(true);
    const d = await decision;
    expect(d.action).toBe('deny');
    expect(JSON.stringify(d.reasons)).toContain('not now');
  });

  it('attack: a forged, malformed answer published straight into Redis denies; it never approves', async () => {
    const guard = createGuard({
      plugins: [promptPolicy(), approvals({ strategy: busStrategy(askerA), timeoutMs: 3_000 })],
    });
    const raised = new Promise<string>((resolve) => {
      const sub = desk1.events$.subscribe((e) => {
        if (e.type === 'raised' && e.item.sessionId === 'forged') {
          sub.unsubscribe();
          resolve(e.item.id);
        }
      });
    });
    const decision = guard.check({ tool: 'write_file', args: { path: join(root, 'f.txt') } }, ctx('forged'));
    const id = await raised;
    await raw.publish(
      'toolgate:approvals:events',
      JSON.stringify({
        type: 'settled',
        id,
        cause: 'answered',
        answer: { id, approved: 'yes', by: 'mallory' },
      }),
    );
    const d = await decision;
    expect(d.action).toBe('deny');
    expect(JSON.stringify(d.reasons)).toMatch(/approved must be a boolean/);
  });

  it('withdrawn questions leave every desk, and a later answer loses', async () => {
    const stop = askerA.answers('gone', () => {
      throw new Error('must not be answered');
    });
    await askerA.publish(question('gone'));
    expect(await until(() => desk2.pending().some((p) => p.id === 'gone'))).toBe(true);
    stop();
    await askerA.withdraw?.('gone', 'withdrawn');
    expect(await until(() => !desk2.pending().some((p) => p.id === 'gone'))).toBe(true);
    expect(await desk2.respond('gone', { approved: true, by: 'x' })).toBe(false);
  });

  it('a question id already used by another asker is refused (denied), not merged', async () => {
    await askerA.publish(question('dup'));
    await expect(askerB.publish(question('dup'))).rejects.toThrow(/already in use by another asker/);
  });

  it('a malformed answer at the desk is an error that approves nothing', async () => {
    await expect(desk1.respond('x', { approved: true } as never)).rejects.toThrow(
      /answer\.by must be a non-empty string/,
    );
    await expect(desk1.respond('x', { approved: 'yes', by: 'b' } as never)).rejects.toThrow(
      /answer\.approved/,
    );
  });

  it('a consumer group shares the questions: each goes to one bot of the pool, a console still sees all; settled ones are acknowledged', async () => {
    const prefix = 'pool:';
    const asker = redisApprovalBus({ url: redis.url, prefix });
    const bot1 = redisDesk({ url: redis.url, prefix, group: 'bots', consumer: 'bot-1' });
    const bot2 = redisDesk({ url: redis.url, prefix, group: 'bots', consumer: 'bot-2' });
    const consoleDesk = redisDesk({ url: redis.url, prefix });
    try {
      await Promise.all([bot1.ready(), bot2.ready(), consoleDesk.ready()]);
      const seenBy = new Map<string, string[]>();
      const consoleSaw = new Set<string>();
      consoleDesk.events$.subscribe((e) => {
        if (e.type === 'raised') consoleSaw.add(e.item.id);
      });
      for (const [name, d] of [
        ['bot-1', bot1],
        ['bot-2', bot2],
      ] as const)
        d.events$.subscribe((e) => {
          if (e.type !== 'raised') return;
          seenBy.set(e.item.id, [...(seenBy.get(e.item.id) ?? []), name]);
          void d.respond(e.item.id, { approved: true, by: name });
        });
      const ids = Array.from({ length: 20 }, (_, i) => `pooled-${i}`);
      const answers = new Map<string, string>();
      await Promise.all(
        ids.map((id) => {
          asker.answers(id, (a) => answers.set(id, a.by));
          return asker.publish(question(id));
        }),
      );
      expect(await until(() => answers.size === ids.length)).toBe(true);
      for (const id of ids) {
        expect(seenBy.get(id)).toHaveLength(1);
        expect(answers.get(id)).toBe(seenBy.get(id)?.[0]);
      }
      // Each question went to exactly one bot of the pool (above); the console saw every one of them.
      expect(ids.every((id) => consoleSaw.has(id))).toBe(true);
      expect(await until(() => consoleDesk.pending().length === 0)).toBe(true);
      // Acknowledged as they settled (the XACK is sent right after the answer).
      const end = Date.now() + 3_000;
      let left = ((await raw.xpending('pool:approvals', 'bots')) as [number])[0];
      while (left > 0 && Date.now() < end) {
        await new Promise((r) => setTimeout(r, 50));
        left = ((await raw.xpending('pool:approvals', 'bots')) as [number])[0];
      }
      expect(left).toBe(0);
    } finally {
      await Promise.all([asker.close(), bot1.close(), bot2.close(), consoleDesk.close()]);
    }
  });
});
