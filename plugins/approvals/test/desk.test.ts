import type { GuardPlugin } from '@toolgate/core';
import { filter, firstValueFrom, take, toArray } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type DeskEvent, desk, firstOf, queue } from '../src/index.js';
import { guardFor } from './helpers/guard.js';
import { makeWorkspace, type Workspace } from './helpers/workspace.js';

let ws: Workspace;
beforeEach(() => {
  ws = makeWorkspace();
});
afterEach(() => ws.cleanup());

const write = (path: string) => ({ tool: 'write_file', args: { path } });
const raised = (d: ReturnType<typeof desk>, n: number) =>
  firstValueFrom(
    d.events$.pipe(
      filter((e): e is Extract<DeskEvent, { type: 'raised' }> => e.type === 'raised'),
      take(n),
      toArray(),
    ),
  );

describe('desk strategy (ApprovalDesk in process)', () => {
  it('raises plain-JSON items with the deadline the plugin set, answers once, and says who answered', async () => {
    const d = desk();
    const guard = guardFor(ws, { strategy: d, timeoutMs: 30_000 });
    const events: DeskEvent[] = [];
    d.events$.subscribe((e) => events.push(e));
    const got = raised(d, 1);
    const before = Date.now();
    const call = guard.check(write('secrets/a.txt'), ws.ctx('s1'));
    const [e] = await got;
    const item = e!.item;
    expect(JSON.parse(JSON.stringify(item))).toEqual(item);
    expect(item.deadline).toBeGreaterThanOrEqual(before + 30_000);
    expect(item.deadline).toBeLessThanOrEqual(Date.now() + 30_000);
    expect(item.items[0]).toMatchObject({ op: 'write', code: 'PATH_PROMPT' });
    expect(item.accesses.some((a) => a.raw === 'secrets/a.txt')).toBe(true);
    expect(d.pending().map((p) => p.id)).toEqual([item.id]);
    await expect(d.respond(item.id, { approved: true, by: 'ann', reason: 'ok' })).resolves.toBe(true);
    await expect(d.respond(item.id, { approved: false, by: 'bob' })).resolves.toBe(false);
    const decision = await call;
    expect(decision.action).toBe('allow');
    expect(decision.approval?.by).toBe('ann');
    expect(d.pending()).toEqual([]);
    expect(events.filter((x) => x.type === 'settled')).toEqual([
      { type: 'settled', id: item.id, cause: 'answered', approved: true, by: 'ann', reason: 'ok' },
    ]);
  });

  it('a question nobody answers settles as timeout and the call is denied', async () => {
    const d = desk();
    const guard = guardFor(ws, { strategy: d, timeoutMs: 200 });
    const settled = firstValueFrom(d.events$.pipe(filter((e) => e.type === 'settled')));
    const decision = await guard.check(write('secrets/a.txt'), ws.ctx('s1'));
    expect(decision.action).toBe('deny');
    expect(await settled).toMatchObject({ cause: 'timeout', approved: false });
    expect(d.pending()).toEqual([]);
  });

  it('answered by another strategy of firstOf ⇒ withdrawn from the desk', async () => {
    const d = desk();
    const q = queue();
    q.requests$.subscribe((r) => setTimeout(() => q.respond(r.id, { approved: false, by: 'other' }), 20));
    const guard = guardFor(ws, { strategy: firstOf([d, q]), timeoutMs: 30_000 });
    const settled = firstValueFrom(d.events$.pipe(filter((e) => e.type === 'settled')));
    const decision = await guard.check(write('secrets/a.txt'), ws.ctx('s1'));
    expect(decision.action).toBe('deny');
    expect(await settled).toMatchObject({ cause: 'withdrawn' });
  });

  it('core settling the prompt first (its onPrompt bound) withdraws the question from the desk at once', async () => {
    const d = desk();
    const guard = guardFor(ws, { strategy: d, timeoutMs: 30_000 }, { timeouts: { onPrompt: 300 } });
    const settled = firstValueFrom(d.events$.pipe(filter((e) => e.type === 'settled')));
    const decision = await guard.check(write('secrets/a.txt'), ws.ctx('s1'));
    expect(decision.action).toBe('deny');
    expect(await settled).toMatchObject({ cause: 'withdrawn' });
    expect(d.pending()).toEqual([]);
  });

  it('respond: an answer without by or malformed rejects and approves nothing; unknown id ⇒ false', async () => {
    const d = desk();
    await expect(d.respond('nope', { approved: true, by: 'x' })).resolves.toBe(false);
    const guard = guardFor(ws, { strategy: d, timeoutMs: 400 });
    const got = raised(d, 1);
    const call = guard.check(write('secrets/a.txt'), ws.ctx('s1'));
    const [e] = await got;
    await expect(d.respond(e!.item.id, { approved: true } as never)).rejects.toThrow(/answer.by/);
    await expect(d.respond(e!.item.id, { approved: 'yes', by: 'x' } as never)).rejects.toThrow(
      /answer.approved/,
    );
    expect((await call).action).toBe('deny');
  });

  it('a session grant answered at the desk answers the session’s later call without a question', async () => {
    const d = desk();
    const guard = guardFor(ws, { strategy: d, timeoutMs: 30_000 });
    const got = raised(d, 1);
    const call = guard.check(write('secrets/a.txt'), ws.ctx('s1'));
    const [e] = await got;
    await d.respond(e!.item.id, { approved: true, grant: 'subtree', by: 'ann' });
    expect((await call).action).toBe('allow');
    const later = await guard.check(write('secrets/b.txt'), ws.ctx('s1'));
    expect(later.action).toBe('allow');
    expect(later.approval?.by).toBe('grant');
    // Another session is not covered (sessions are isolated): it asks.
    const other = raised(d, 1);
    const call2 = guard.check(write('secrets/b.txt'), ws.ctx('s2'));
    const [e2] = await other;
    expect(e2!.item.sessionId).toBe('s2');
    await d.respond(e2!.item.id, { approved: false, by: 'ann' });
    expect((await call2).action).toBe('deny');
  });

  it('a host that needs approval is on the item with its rule; the command as written is there too', async () => {
    const d = desk();
    const network: GuardPlugin = {
      name: 'net-policy',
      apply(hooks) {
        hooks.beforeToolCall.tap('net-policy', (call, state) => {
          if (call.tool !== 'bash') return undefined;
          state.prompt({
            code: 'NETWORK_PROMPT',
            reason: 'host needs approval',
            network: {
              raw: 'https://example.com/x',
              host: 'example.com',
              port: 443,
              method: 'GET',
              origin: 'shell:curl',
              certain: true,
            } as never,
            rule: {
              plugin: 'net-policy',
              pattern: '*.example.com',
              access: 'prompt',
              source: 'policy.yaml#network[0]',
            },
          });
          return undefined;
        });
      },
    };
    const guard = guardFor(ws, { strategy: d, timeoutMs: 30_000 }, { plugins: [network] });
    const got = raised(d, 1);
    const call = guard.check({ tool: 'bash', args: { command: 'curl https://example.com/x' } }, ws.ctx('s1'));
    const [e] = await got;
    expect(e!.item.command).toBe('curl https://example.com/x');
    expect(e!.item.hosts).toEqual([
      {
        raw: 'https://example.com/x',
        host: 'example.com',
        port: 443,
        method: 'GET',
        code: 'NETWORK_PROMPT',
        reason: 'host needs approval',
        rule: '*.example.com (prompt) from policy.yaml#network[0]',
      },
    ]);
    await d.respond(e!.item.id, { approved: false, by: 'ann' });
    expect((await call).action).toBe('deny');
  });

  it('bad options fail at construction', () => {
    expect(() => desk({ name: '' })).toThrow(/desk: name/);
    expect(() => desk({ fallbackTimeoutMs: -1 })).toThrow(/fallbackTimeoutMs/);
  });
});
