import { type CallContext, createGuard, type GuardPlugin, Stage } from '@toolgate/core';
import { firstValueFrom, take } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { approvals, queue } from '../src/index.js';
import { renderRequest } from '../src/strategies/renderRequest.js';

const ctx: CallContext = {
  sessionId: 's1',
  agentId: 'a',
  cwd: '/ws',
  workspace: '/ws',
  home: '/home/u',
  env: {},
};

/** A network policy in miniature: the call's `url` reaches its host, and `ask.example` needs approval. */
const hostPolicy: GuardPlugin = {
  name: 'host-policy',
  policy: true,
  apply(hooks) {
    hooks.collectAccesses.tap({ stage: Stage.EXTRACT }, (accesses, call, state) => {
      const url = new URL(String(call.args.url));
      state.reach({
        raw: String(call.args.url),
        scheme: 'https',
        host: url.hostname,
        port: 443,
        method: 'read',
        origin: 'args.url',
        certain: true,
      });
      return accesses;
    });
    hooks.beforeToolCall.tap({ stage: Stage.POLICY }, (_call, state) => {
      for (const net of state.network)
        if (net.host === 'ask.example')
          state.prompt({
            action: 'prompt',
            code: 'NETWORK_PROMPT',
            reason: `WebFetch would fetch from ${net.host}:443: approval required`,
            network: net,
            rule: {
              plugin: 'host-policy',
              pattern: 'prompt ask.example',
              access: 'prompt',
              source: '/ws/toolgate.yaml#network.rules[0]',
            },
          });
      return undefined;
    });
  },
};

describe('approvals: a NETWORK_PROMPT finding is askable', () => {
  it('the human is shown the host and the rule; approving allows the call, denying denies it', async () => {
    const q = queue();
    const guard = createGuard({ plugins: [hostPolicy, approvals({ strategy: q })] });
    const asked = firstValueFrom(q.requests$.pipe(take(1)));
    const call = guard.check({ tool: 'WebFetch', args: { url: 'https://ask.example/a' } }, ctx);
    const request = await asked;
    expect(request.items).toEqual([]);
    const text = renderRequest(request);
    expect(text).toContain('Host: ask.example:443');
    expect(text).toContain('(as typed: https://ask.example/a)');
    expect(text).toContain('[rule prompt ask.example from /ws/toolgate.yaml#network.rules[0]]');
    q.respond(request.id, { approved: true });
    expect((await call).action).toBe('allow');
    // Approved once: the next call for the host is asked again — and denied here.
    const again = firstValueFrom(q.requests$.pipe(take(1)));
    const second = guard.check({ tool: 'WebFetch', args: { url: 'https://ask.example/b' } }, ctx);
    const r2 = await again;
    q.respond(r2.id, { approved: false });
    const d2 = await second;
    expect(d2.action).toBe('deny');
    expect(d2.network?.[0]?.host).toBe('ask.example');
  });

  it('approved for the session: later calls reaching that host with that method pass without a question', async () => {
    const q = queue();
    const guard = createGuard({ plugins: [hostPolicy, approvals({ strategy: q })] });
    const asked = firstValueFrom(q.requests$.pipe(take(1)));
    const first = guard.check({ tool: 'WebFetch', args: { url: 'https://ask.example/a' } }, ctx);
    q.respond((await asked).id, { approved: true, grant: 'subtree' });
    const d1 = await first;
    expect(d1.action).toBe('allow');
    const d2 = await guard.check({ tool: 'WebFetch', args: { url: 'https://ask.example/other/page' } }, ctx);
    expect(d2.action).toBe('allow');
    expect(q.pending()).toHaveLength(0);
    // Twins: another session is asked; the grant is by session, host and method.
    const elsewhere = firstValueFrom(q.requests$.pipe(take(1)));
    const other = guard.check(
      { tool: 'WebFetch', args: { url: 'https://ask.example/a' } },
      { ...ctx, sessionId: 's2' },
    );
    const r3 = await elsewhere;
    expect(r3.sessionId).toBe('s2');
    q.respond(r3.id, { approved: false });
    expect((await other).action).toBe('deny');
  });
  it('twin: a host nobody prompts for is not asked about', async () => {
    const q = queue();
    const guard = createGuard({ plugins: [hostPolicy, approvals({ strategy: q })] });
    const d = await guard.check({ tool: 'WebFetch', args: { url: 'https://ok.example/a' } }, ctx);
    expect(d.action).toBe('allow');
    expect(q.pending()).toHaveLength(0);
  });
});
