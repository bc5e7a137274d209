import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGuard, type GuardPlugin, isWithin } from '@toolgate/core';
import { sampleEvent, signatureHeaders, verifyWebhookSignature, webhooks } from '@toolgate/webhooks';
import { runSuite } from './harness.js';

// A minimal real policy: every path outside the workspace is denied, so each check below is a violation.
const policy = (): GuardPlugin => ({
  name: 'bench-policy',
  apply(hooks) {
    hooks.collectAccesses.tap('x', (accesses, call, state) => [
      ...accesses,
      state.access(String(call.args.path), 'write', { origin: 'args.path' }),
    ]);
    hooks.beforeToolCall.tap('x', (_call, state) => {
      const a = state.accesses[0];
      return a && a.realPath !== null && !isWithin(a.realPath, state.ctx.workspace)
        ? { action: 'deny', code: 'PATH_DENIED', reason: 'outside', access: a }
        : undefined;
    });
  },
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` };
}

/**
 * What the issue asks to measure: the decision latency a violation costs with webhooks installed, against
 * a fast receiver and against one that never answers. The tap only enqueues, so both should stay within
 * noise of the bare guard.
 */
export default async function webhooksBench(): Promise<void> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-bench-webhooks-')));
  const fast = await listen((req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  const hanging = await listen((req) => {
    req.resume();
  });
  const plugins: Array<ReturnType<typeof webhooks>> = [];
  try {
    const ctx = {
      sessionId: 's',
      agentId: 'a',
      cwd: root,
      workspace: root,
      home: join(root, 'home'),
      env: {},
    };
    const call = { tool: 'write_file', args: { path: '/etc/passwd' } };
    const make = (url: string, dir: string) => {
      const p = webhooks({
        targets: [{ url, secret: 'bench' }],
        outboxDir: join(root, dir),
        maxPending: 50_000,
        retry: { timeoutMs: 200, baseDelayMs: 50 },
        env: {},
      });
      plugins.push(p);
      return p;
    };
    const bare = createGuard({ plugins: [policy()] });
    // Core's own cost of having any onViolation observer (hook promise, observer wrapper): the fair baseline.
    const noopObserver: GuardPlugin = {
      name: 'noop-observer',
      apply: (hooks) => hooks.onViolation.tap({ stage: 2_000 }, () => undefined),
    };
    const observed = createGuard({ plugins: [policy(), noopObserver] });
    const toFast = createGuard({ plugins: [policy(), make(fast.url, 'fast')] });
    const toHanging = createGuard({ plugins: [policy(), make(hanging.url, 'hanging')] });
    const enqueueOnly = make(fast.url, 'enqueue');
    const event = sampleEvent();
    const body = JSON.stringify(event);
    const signed = signatureHeaders('bench', body);
    const medians = await runSuite('@toolgate/webhooks: decision latency of a violation', [
      { name: 'check deny, no webhooks', fn: () => bare.check(call, ctx) },
      { name: 'check deny + no-op onViolation tap', fn: () => observed.check(call, ctx) },
      { name: 'check deny + webhooks (receiver 200)', fn: () => toFast.check(call, ctx) },
      { name: 'check deny + webhooks (receiver hangs)', fn: () => toHanging.check(call, ctx) },
      { name: 'notify() enqueue only', fn: () => enqueueOnly.notify(event) },
      {
        name: 'verifyWebhookSignature',
        fn: () => verifyWebhookSignature({ body, headers: signed, secret: 'bench' }),
      },
    ]);
    const base = medians.get('check deny, no webhooks') ?? Number.NaN;
    const withTap = medians.get('check deny + no-op onViolation tap') ?? Number.NaN;
    for (const name of ['check deny + webhooks (receiver 200)', 'check deny + webhooks (receiver hangs)']) {
      const m = medians.get(name) ?? Number.NaN;
      console.log(
        `${name}: +${Math.round(m - base)} ns/op over the bare guard, +${Math.round(m - withTap)} ns/op over a no-op observer`,
      );
    }
    for (const p of plugins) console.log(`${p.targets[0]}: ${JSON.stringify(p.stats())}`);
  } finally {
    await Promise.all(plugins.map((p) => p.close()));
    fast.server.closeAllConnections();
    hanging.server.closeAllConnections();
    fast.server.close();
    hanging.server.close();
    rmSync(root, { recursive: true, force: true });
  }
}
