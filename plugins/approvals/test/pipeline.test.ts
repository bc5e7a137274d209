import { join } from 'node:path';
import { createGuard } from '@toolgate/core';
import { EMPTY, NEVER, Observable, throwError } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ApprovalRequest,
  type ApprovalStrategy,
  approvals,
  autoAllow,
  autoDeny,
  queue,
} from '../src/index.js';
import { guardFor } from './helpers/guard.js';
import { makeWorkspace, type Workspace } from './helpers/workspace.js';

let ws: Workspace;
beforeEach(() => {
  ws = makeWorkspace();
});
afterEach(() => ws.cleanup());

/** A strategy that records what it was asked and answers with `answer`. */
function recording(answer: (r: ApprovalRequest) => Observable<never> | Observable<{ approved: boolean }>) {
  const asked: ApprovalRequest[] = [];
  const strategy: ApprovalStrategy = {
    name: 'recording',
    ask: (r) => {
      asked.push(r);
      return answer(r);
    },
  };
  return { asked, strategy };
}

describe('approvals through createGuard', () => {
  it('autoAllow approves a prompt-tier call; autoDeny denies it with PROMPT_DENIED', async () => {
    const call = { tool: 'write_file', args: { path: 'secrets/a.txt' } };
    const allow = await guardFor(ws, { strategy: autoAllow() }).check(call, ws.ctx('s1'));
    expect(allow.verdict).toBe('prompt');
    expect(allow.action).toBe('allow');
    expect(allow.approval).toMatchObject({ approved: true, by: 'auto-allow' });
    const deny = await guardFor(ws, { strategy: autoDeny() }).check(call, ws.ctx('s1'));
    expect(deny.action).toBe('deny');
    expect(deny.envelope?.code).toBe('PROMPT_DENIED');
  });

  it('calls that need no approval never reach the strategy', async () => {
    const { asked, strategy } = recording(() => NEVER);
    const guard = guardFor(ws, { strategy });
    const d = await guard.check({ tool: 'write_file', args: { path: 'notes.txt' } }, ws.ctx('s1'));
    expect(d.action).toBe('allow');
    expect(asked).toHaveLength(0);
  });

  it('asks once per call, carrying every prompt-tier path (raw and real, op, rule)', async () => {
    const { asked, strategy } = recording(() => new Observable((s) => s.next({ approved: true })));
    const guard = guardFor(ws, { strategy });
    const d = await guard.check(
      { tool: 'write_many', args: { paths: ['secrets/a.txt', './secrets/deep/b.txt', 'ok.txt'] } },
      ws.ctx('s1'),
    );
    expect(d.action).toBe('allow');
    expect(asked).toHaveLength(1);
    const items = asked[0]!.items;
    expect(items.map((i) => [i.op, i.raw, i.realPath])).toEqual([
      ['write', 'secrets/a.txt', join(ws.secrets, 'a.txt')],
      ['write', './secrets/deep/b.txt', join(ws.secrets, 'deep/b.txt')],
    ]);
    expect(items[0]!.rule?.pattern).toBe(`${ws.secrets}/**`);
  });

  it('a deny anywhere in the call short-circuits: no approval is ever asked', async () => {
    const q = queue();
    const seen: ApprovalRequest[] = [];
    q.requests$.subscribe((r) => seen.push(r));
    const guard = guardFor(ws, { strategy: q });
    const d = await guard.check(
      { tool: 'write_many', args: { paths: ['secrets/a.txt', 'private/key'] } },
      ws.ctx('s1'),
    );
    expect(d.action).toBe('deny');
    expect(d.envelope?.code).toBe('PATH_DENIED');
    expect(seen).toHaveLength(0);
    expect(q.pending()).toHaveLength(0);
  });

  it('an approver that throws, errors or completes without answering ⇒ deny', async () => {
    const call = { tool: 'write_file', args: { path: 'secrets/a.txt' } };
    const throwing: ApprovalStrategy = {
      name: 'throwing',
      ask: () => {
        throw new Error('boom');
      },
    };
    const erroring: ApprovalStrategy = {
      name: 'erroring',
      ask: () => throwError(() => new Error('remote down')),
    };
    const silent: ApprovalStrategy = { name: 'silent', ask: () => EMPTY };
    const nonsense: ApprovalStrategy = {
      name: 'nonsense',
      ask: () => new Observable((s) => s.next({ approved: 'yes' } as never)),
    };
    for (const strategy of [throwing, erroring, silent, nonsense]) {
      const d = await guardFor(ws, { strategy }).check(call, ws.ctx('s1'));
      expect(d.action, strategy.name).toBe('deny');
      expect(d.approval?.approved, strategy.name).toBe(false);
    }
    const d = await guardFor(ws, { strategy: erroring }).check(call, ws.ctx('s1'));
    expect(d.envelope?.error).toContain('remote down');
  });

  it('times out ⇒ deny with PROMPT_TIMEOUT and a reason that says so; the question is withdrawn', async () => {
    const q = queue();
    const guard = guardFor(ws, { strategy: q, timeoutMs: 80 });
    const started = Date.now();
    const d = await guard.check({ tool: 'write_file', args: { path: 'secrets/a.txt' } }, ws.ctx('s1'));
    expect(Date.now() - started).toBeGreaterThanOrEqual(70);
    expect(d.action).toBe('deny');
    expect(d.envelope?.code).toBe('PROMPT_TIMEOUT');
    expect(d.envelope?.error).toMatch(/timed out/);
    expect(q.pending()).toHaveLength(0);
    // A late answer changes nothing.
    expect(q.respond(d.id, { approved: true })).toBe(false);
  });

  it("the guard's own onPrompt bound also denies (PROMPT_TIMEOUT) when it is shorter", async () => {
    const { strategy } = recording(() => NEVER);
    const guard = guardFor(ws, { strategy, timeoutMs: 60_000 }, { timeouts: { onPrompt: 60 } });
    const d = await guard.check({ tool: 'write_file', args: { path: 'secrets/a.txt' } }, ws.ctx('s1'));
    expect(d.action).toBe('deny');
    expect(d.envelope?.code).toBe('PROMPT_TIMEOUT');
  });

  it('resolvePrompts: false returns the prompt verdict without asking anyone', async () => {
    const { asked, strategy } = recording(() => NEVER);
    const d = await guardFor(ws, { strategy }).check(
      { tool: 'write_file', args: { path: 'secrets/a.txt' } },
      ws.ctx('s1'),
      { resolvePrompts: false },
    );
    expect(d.action).toBe('prompt');
    expect(asked).toHaveLength(0);
  });

  it('a prompt about the call as a whole (no path) is asked every time, never answered by a grant', async () => {
    const { asked, strategy } = recording(
      () => new Observable((s) => s.next({ approved: true, grant: 'subtree' } as { approved: boolean })),
    );
    const toolLevel = {
      name: 'tool-level',
      apply(hooks: Parameters<import('@toolgate/core').GuardPlugin['apply']>[0]) {
        hooks.beforeToolCall.tap({}, () => ({
          action: 'prompt',
          code: 'PATH_PROMPT',
          reason: 'tool needs approval',
        }));
      },
    };
    const guard = createGuard({ plugins: [toolLevel, approvals({ strategy })] });
    for (let i = 0; i < 2; i++) {
      const d = await guard.check({ tool: 'deploy', args: {} }, ws.ctx('s1'));
      expect(d.action).toBe('allow');
    }
    expect(asked).toHaveLength(2);
    expect(asked[0]!.items).toHaveLength(0);
  });
});
