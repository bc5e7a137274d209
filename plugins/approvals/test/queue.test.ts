import { filter, firstValueFrom, take, toArray } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ApprovalRequest, firstOf, queue } from '../src/index.js';
import { guardFor } from './helpers/guard.js';
import { makeWorkspace, type Workspace } from './helpers/workspace.js';

let ws: Workspace;
beforeEach(() => {
  ws = makeWorkspace();
});
afterEach(() => ws.cleanup());

const write = (path: string) => ({ tool: 'write_file', args: { path } });

describe('queue strategy', () => {
  it('answers concurrent calls of different sessions independently, by id', async () => {
    const q = queue();
    const guard = guardFor(ws, { strategy: q });
    const three = firstValueFrom(q.requests$.pipe(take(3), toArray()));
    const calls = ['s1', 's2', 's3'].map((s) => guard.check(write('secrets/a.txt'), ws.ctx(s)));
    const requests = await three;
    expect(new Set(requests.map((r) => r.sessionId))).toEqual(new Set(['s1', 's2', 's3']));
    for (const r of requests)
      expect(q.respond(r.id, { approved: r.sessionId !== 's2', by: 'operator' })).toBe(true);
    const decisions = await Promise.all(calls);
    expect(decisions.map((d) => d.action)).toEqual(['allow', 'deny', 'allow']);
    expect(decisions[0]!.approval?.by).toBe('operator');
    expect(q.pending()).toHaveLength(0);
  });

  it('a late subscriber still sees requests already waiting', async () => {
    const q = queue();
    const guard = guardFor(ws, { strategy: q });
    const early = firstValueFrom(q.requests$.pipe(take(1)));
    const call = guard.check(write('secrets/a.txt'), ws.ctx('s1'));
    await early;
    const late = await firstValueFrom(q.requests$.pipe(take(1)));
    expect(late.sessionId).toBe('s1');
    q.respond(late.id, { approved: true });
    expect((await call).action).toBe('allow');
  });

  it('an answer given synchronously by the requests$ subscriber is not lost', async () => {
    const q = queue();
    q.requests$.subscribe((r) => q.respond(r.id, { approved: true, by: 'bot' }));
    const d = await guardFor(ws, { strategy: q }).check(write('secrets/a.txt'), ws.ctx('s1'));
    expect(d.approval).toMatchObject({ approved: true, by: 'bot' });
  });

  it('respond: unknown ids return false; malformed answers throw and approve nothing', async () => {
    const q = queue();
    expect(q.respond('nope', { approved: true })).toBe(false);
    const guard = guardFor(ws, { strategy: q, timeoutMs: 300 });
    const first = firstValueFrom(q.requests$.pipe(take(1)));
    const call = guard.check(write('secrets/a.txt'), ws.ctx('s1'));
    const r = await first;
    expect(() => q.respond(r.id, { approved: 'yes' } as never)).toThrow(/answer.approved must be a boolean/);
    expect(() => q.respond(r.id, null as never)).toThrow(
      /TOOLGATE_ERR_INVALID_OPTIONS|answer must be an object/,
    );
    expect(() => q.respond(r.id, { approved: true, grant: 'everything' } as never)).toThrow(/answer.grant/);
    const d = await call;
    expect(d.action).toBe('deny');
    expect(d.envelope?.code).toBe('PROMPT_TIMEOUT');
  });

  it('de-duplicates identical concurrent requests: one question, every waiter gets the answer', async () => {
    const q = queue();
    const seen: ApprovalRequest[] = [];
    q.requests$.subscribe((r) => seen.push(r));
    const guard = guardFor(ws, { strategy: q });
    const ctx = ws.ctx('s1');
    const calls = [1, 2, 3].map(() => guard.check(write('./secrets/../secrets/a.txt'), ctx));
    await new Promise((r) => setTimeout(r, 30));
    expect(seen).toHaveLength(1);
    q.respond(seen[0]!.id, { approved: false, reason: 'not now' });
    const decisions = await Promise.all(calls);
    expect(decisions.map((d) => d.action)).toEqual(['deny', 'deny', 'deny']);
    expect(decisions[2]!.envelope?.error).toMatch(/not now/);
    expect(seen).toHaveLength(1);
  });

  it('one question at a time per session: an answer that grants covers the next waiting request', async () => {
    const q = queue();
    const seen: ApprovalRequest[] = [];
    q.requests$.subscribe((r) => seen.push(r));
    const guard = guardFor(ws, { strategy: q });
    const ctx = ws.ctx('s1');
    const a = guard.check(write('secrets/a.txt'), ctx);
    const b = guard.check(write('secrets/b.txt'), ctx);
    await new Promise((r) => setTimeout(r, 30));
    expect(seen).toHaveLength(1);
    q.respond(seen[0]!.id, { approved: true, grant: 'directory' });
    const [da, db] = await Promise.all([a, b]);
    expect(da.approval?.by).toBe('queue');
    expect(db.approval?.by).toBe('grant');
    expect(seen).toHaveLength(1);
  });

  it('sessions are isolated under concurrency: a grant of one is invisible to the other', async () => {
    const q = queue();
    const guard = guardFor(ws, { strategy: q });
    const s1 = ws.ctx('session-one');
    const s2 = ws.ctx('session-two');
    const fromS1 = q.requests$.pipe(filter((r) => r.sessionId === 'session-one'));
    const fromS2 = q.requests$.pipe(filter((r) => r.sessionId === 'session-two'));
    const r1 = firstValueFrom(fromS1);
    const r2 = firstValueFrom(fromS2);
    const c1 = guard.check(write('secrets/a.txt'), s1);
    const c2 = guard.check(write('secrets/a.txt'), s2);
    const [req1, req2] = await Promise.all([r1, r2]);
    // Identical requests, but of two sessions: two questions, never merged.
    expect(req1.id).not.toBe(req2.id);
    q.respond(req1.id, { approved: true, grant: 'subtree' });
    q.respond(req2.id, { approved: false, cancelSession: true });
    expect((await c1).action).toBe('allow');
    expect((await c2).envelope?.code).toBe('SESSION_CANCELLED');
    // In parallel again: session one rides its grant, session two stays cancelled, never asked.
    const [again1, again2] = await Promise.all([
      guard.check(write('secrets/deep/x'), s1),
      guard.check(write('secrets/deep/x'), s2),
    ]);
    expect(again1.approval?.by).toBe('grant');
    expect(again2.envelope?.code).toBe('SESSION_CANCELLED');
    // q cancels every later call of that session, also one the policy allows without asking (seed 002).
    const [plain1, plain2] = await Promise.all([
      guard.check(write('notes.txt'), s1),
      guard.check(write('notes.txt'), s2),
    ]);
    expect(plain1.action).toBe('allow');
    expect(plain2.envelope?.code).toBe('SESSION_CANCELLED');
    expect(q.pending()).toHaveLength(0);
    // Ending session one forgets its grants.
    guard.endSession('session-one');
    const next = firstValueFrom(fromS1);
    const c3 = guard.check(write('secrets/deep/x'), s1);
    q.respond((await next).id, { approved: false });
    expect((await c3).action).toBe('deny');
  });

  it('firstOf: the first answer wins and the other question is withdrawn', async () => {
    const local = queue({ name: 'local' });
    const remote = queue({ name: 'remote' });
    const guard = guardFor(ws, { strategy: firstOf([local, remote]) });
    const asked = firstValueFrom(remote.requests$);
    const call = guard.check(write('secrets/a.txt'), ws.ctx('s1'));
    const r = await asked;
    expect(local.pending()).toHaveLength(1);
    remote.respond(r.id, { approved: true });
    const d = await call;
    expect(d.approval?.by).toBe('remote');
    expect(local.pending()).toHaveLength(0);
    expect(local.respond(r.id, { approved: false })).toBe(false);
  });
});
