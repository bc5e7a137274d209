import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { approvals, busStrategy, type DeskEvent } from '@toolgate/approvals';
import { type CallContext, createGuard, type GrantStore, type Guard } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisDesk, redisApprovalBus, redisDesk, redisGrantStore } from '../src/index.js';
import { promptPolicy } from './helpers/promptPolicy.js';
import { startRedis, type TestRedis } from './helpers/redisServer.js';

let redis: TestRedis;
let desk: RedisDesk;
let root: string;
const closers: (() => Promise<void>)[] = [];
const asked: DeskEvent[] = [];
/** What the person at the desk answers, by session. */
const answers = new Map<string, Parameters<RedisDesk['respond']>[1]>();

/** One "machine": its own bus and store connections, its own guard and session memory. */
function machine(store?: GrantStore): Guard {
  const bus = redisApprovalBus({ url: redis.url });
  const grants = store ?? redisGrantStore({ url: redis.url });
  closers.push(() => bus.close());
  if (!store) closers.push(() => (grants as ReturnType<typeof redisGrantStore>).close());
  return createGuard({
    plugins: [promptPolicy(), approvals({ strategy: busStrategy(bus), store: grants, timeoutMs: 3_000 })],
  });
}

beforeAll(async () => {
  redis = await startRedis();
  desk = redisDesk({ url: redis.url });
  await desk.ready();
  desk.events$.subscribe((e) => {
    asked.push(e);
    if (e.type !== 'raised') return;
    const answer = answers.get(e.item.sessionId);
    if (answer) void desk.respond(e.item.id, answer);
  });
  root = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-redis-grants-')));
  mkdirSync(join(root, 'docs'));
  mkdirSync(join(root, 'other'));
});

afterAll(async () => {
  await Promise.all(closers.map((c) => c()));
  await desk.close();
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
const raisedFor = (session: string) =>
  asked.filter((e) => e.type === 'raised' && e.item.sessionId === session).length;

describe('grants and cancellations shared by two machines through Redis', () => {
  it('a session grant made through one machine answers the same session on the other, without a question', async () => {
    const a = machine();
    const b = machine();
    answers.set('shared', { approved: true, by: 'alice', grant: 'directory' });
    const first = await a.check(
      { tool: 'write_file', args: { path: join(root, 'docs', '1.md') } },
      ctx('shared'),
    );
    expect(first.action).toBe('allow');
    expect(raisedFor('shared')).toBe(1);
    answers.delete('shared');
    // b already knows the session (it saw it before the grant): the grant must still count.
    const second = await b.check(
      { tool: 'write_file', args: { path: join(root, 'docs', '2.md') } },
      ctx('shared'),
    );
    expect(second.action).toBe('allow');
    expect(JSON.stringify(second)).toContain('covered by an earlier approval');
    expect(raisedFor('shared')).toBe(1);
    // Twin: outside the granted directory the question is asked again (and denied by the desk here).
    answers.set('shared', { approved: false, by: 'alice' });
    const outside = await b.check(
      { tool: 'write_file', args: { path: join(root, 'other', '3.md') } },
      ctx('shared'),
    );
    expect(outside.action).toBe('deny');
    expect(raisedFor('shared')).toBe(2);
    // And it never leaks into another session.
    answers.set('stranger', { approved: false, by: 'alice' });
    const stranger = await b.check(
      { tool: 'write_file', args: { path: join(root, 'docs', '4.md') } },
      ctx('stranger'),
    );
    expect(stranger.action).toBe('deny');
  });

  it('a cancellation (q) answered for one machine denies the session on the other', async () => {
    const a = machine();
    const b = machine();
    // b knows the session first, with no grants.
    answers.set('cancel-me', { approved: true, by: 'alice' });
    expect(
      (await b.check({ tool: 'write_file', args: { path: join(root, 'x.md') } }, ctx('cancel-me'))).action,
    ).toBe('allow');
    answers.set('cancel-me', { approved: false, cancelSession: true, by: 'alice' });
    const q = await a.check({ tool: 'write_file', args: { path: join(root, 'y.md') } }, ctx('cancel-me'));
    expect(q.reasons.map((r) => r.code)).toContain('SESSION_CANCELLED');
    answers.set('cancel-me', { approved: true, by: 'alice' });
    const later = await b.check({ tool: 'write_file', args: { path: join(root, 'z.md') } }, ctx('cancel-me'));
    expect(later.action).toBe('deny');
    expect(later.reasons.map((r) => r.code)).toContain('SESSION_CANCELLED');
  });

  it('a grant store that cannot be read: the prompt goes to the approver, no grant is assumed', async () => {
    const good = machine();
    answers.set('blind', { approved: true, by: 'alice', grant: 'subtree' });
    expect(
      (await good.check({ tool: 'write_file', args: { path: join(root, 'docs', 'a') } }, ctx('blind')))
        .action,
    ).toBe('allow');
    const dead = redisGrantStore({ url: 'redis://127.0.0.1:1', commandTimeoutMs: 200 });
    closers.push(() => dead.close());
    const blind = machine(dead);
    const before = raisedFor('blind');
    answers.set('blind', { approved: false, by: 'alice', reason: 'asked again' });
    const d = await blind.check(
      { tool: 'write_file', args: { path: join(root, 'docs', 'b') } },
      ctx('blind'),
    );
    expect(d.action).toBe('deny');
    expect(JSON.stringify(d.reasons)).toContain('asked again');
    expect(raisedFor('blind')).toBe(before + 1);
  });
});
