import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { readDeadLetters, verifyWebhookSignature, webhooks } from '../src/index.js';
import { context, createGuard, tempDir, workspacePolicy } from './helpers/guard.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';

const FAST = { baseDelayMs: 20, maxDelayMs: 100, timeoutMs: 1_000, maxAttempts: 5, maxRetryAfterMs: 5_000 };
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(
  replies: Parameters<typeof startReceiver>[1] = [],
  extra: Partial<Parameters<typeof webhooks>[0]> = {},
) {
  const tmp = tempDir();
  const receiver = await startReceiver(0, replies);
  const plugin = webhooks({
    targets: [{ url: receiver.url, secret: 'shh' }],
    outboxDir: tmp.dir,
    retry: FAST,
    env: {},
    ...extra,
  });
  cleanups.push(
    tmp.cleanup,
    () => receiver.close(),
    () => plugin.close(),
  );
  const guard = createGuard({ plugins: [workspacePolicy(), plugin] });
  return { tmp, receiver, plugin, guard, ctx: context(tmp.dir) };
}

function bodies(r: Receiver) {
  return r.received.map((x) => JSON.parse(x.body) as Record<string, unknown>);
}

describe('delivery of violations', () => {
  it("sends seed 001's JSON payload, signed, with a delivery id, for a critical violation", async () => {
    const { receiver, plugin, guard, ctx } = await setup();
    const decision = await guard.check({ tool: 'file_write', args: { path: '/etc/passwd' } }, ctx);
    expect(decision.action).toBe('deny');
    expect(await plugin.flush(5_000)).toBe(true);
    expect(receiver.received).toHaveLength(1);
    const [got] = receiver.received;
    const body = JSON.parse(got!.body);
    expect(body).toEqual({
      event: 'security.violation',
      severity: 'critical',
      agent: 'agent-research-bot',
      user: 'user-123',
      tool: 'file_write',
      operation: 'write',
      path: '/etc/passwd',
      reason: 'path outside allowed scope',
      timestamp: new Date(decision.time).toISOString(),
      decisionId: decision.id,
      code: 'PATH_DENIED',
    });
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.headers['x-toolgate-delivery']).toMatch(/^[0-9a-f-]{36}$/);
    expect(verifyWebhookSignature({ body: got!.body, headers: got!.headers, secret: 'shh' })).toMatchObject({
      ok: true,
    });
    expect(verifyWebhookSignature({ body: got!.body, headers: got!.headers, secret: 'other' })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    expect(plugin.stats()).toMatchObject({ enqueued: 1, delivered: 1, pending: 0 });
  });

  it('skips violations below minSeverity (default high) and sends those at or above it', async () => {
    const { receiver, plugin, guard, ctx, tmp } = await setup();
    // A write outside the workspace to a plain tmp path is "medium": not sent by default.
    await guard.check({ tool: 'file_write', args: { path: `${tmp.dir}-other/notes.txt` } }, ctx);
    await guard.check({ tool: 'read_file', args: { path: '/home/u/.ssh/id_rsa' } }, ctx);
    expect(await plugin.flush(5_000)).toBe(true);
    expect(bodies(receiver).map((b) => b.severity)).toEqual(['high']);
    expect(plugin.stats().enqueued).toBe(1);
  });

  it('retries after a 500 and delivers with the same delivery id', async () => {
    const { receiver, plugin, guard, ctx } = await setup([{ status: 500, body: 'boom' }, { status: 503 }]);
    const retries: unknown[] = [];
    plugin.events.on('webhooks:retry', (e) => retries.push(e));
    await guard.check({ tool: 'file_write', args: { path: '/etc/hosts' } }, ctx);
    expect(await plugin.flush(5_000)).toBe(true);
    expect(receiver.received).toHaveLength(3);
    const ids = new Set(receiver.received.map((r) => r.headers['x-toolgate-delivery']));
    expect(ids.size).toBe(1);
    expect(retries).toHaveLength(2);
    expect(plugin.stats()).toMatchObject({ delivered: 1, retried: 2, deadLettered: 0 });
  });

  it('honours Retry-After on a 429', async () => {
    const { receiver, plugin, guard, ctx } = await setup([{ status: 429, headers: { 'retry-after': '1' } }]);
    await guard.check({ tool: 'file_write', args: { path: '/etc/hosts' } }, ctx);
    expect(await plugin.flush(5_000)).toBe(true);
    expect(receiver.received).toHaveLength(2);
    const gap = receiver.received[1]!.at - receiver.received[0]!.at;
    // Backoff alone would retry after 10-20 ms; the receiver asked for one second.
    expect(gap).toBeGreaterThanOrEqual(950);
    expect(gap).toBeLessThan(3_000);
  });

  it('gives up at once on a 400 and writes the event to the dead-letter file', async () => {
    const { receiver, plugin, guard, ctx } = await setup([{ status: 400, body: 'bad payload' }]);
    const dead: unknown[] = [];
    plugin.events.on('webhooks:dead-letter', (e) => dead.push(e));
    const decision = await guard.check({ tool: 'file_write', args: { path: '/etc/hosts' } }, ctx);
    expect(await plugin.flush(5_000)).toBe(true);
    expect(receiver.received).toHaveLength(1);
    expect(dead).toHaveLength(1);
    const letters = await readDeadLetters(plugin.deadLetterFile);
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({ reason: 'rejected', attempts: 1, event: { decisionId: decision.id } });
    expect(letters[0]!.detail).toContain('HTTP 400');
  });

  it('dead-letters after maxAttempts failures, and emits the event on guard.events too', async () => {
    const replies = Array.from({ length: 10 }, () => ({ status: 502 }));
    const { receiver, plugin, guard, ctx } = await setup(replies);
    const seen: unknown[] = [];
    guard.events.on('webhooks:dead-letter', (e) => seen.push(e));
    await guard.check({ tool: 'file_write', args: { path: '/etc/hosts' } }, ctx);
    expect(await plugin.flush(5_000)).toBe(true);
    expect(receiver.received).toHaveLength(FAST.maxAttempts);
    expect(seen).toEqual([expect.objectContaining({ reason: 'max-attempts', attempts: FAST.maxAttempts })]);
    expect(plugin.stats()).toMatchObject({ deadLettered: 1, delivered: 0, pending: 0 });
  });

  it('keeps order per target while one event is being retried', async () => {
    const { receiver, plugin, guard, ctx } = await setup([{ status: 500 }, { status: 500 }]);
    for (const p of ['/etc/a', '/etc/b', '/etc/c', '/etc/d'])
      await guard.check({ tool: 'file_write', args: { path: p } }, ctx);
    expect(await plugin.flush(5_000)).toBe(true);
    const delivered = receiver.received.slice(2).map((r) => JSON.parse(r.body).path);
    expect(delivered).toEqual(['/etc/a', '/etc/b', '/etc/c', '/etc/d']);
    expect(receiver.received.slice(0, 3).map((r) => JSON.parse(r.body).path)).toEqual([
      '/etc/a',
      '/etc/a',
      '/etc/a',
    ]);
  });

  it('a hanging receiver times out per request and never slows a decision (measured)', async () => {
    const tmp = tempDir();
    const hanging = await startReceiver(
      0,
      Array.from({ length: 50 }, () => 'hang' as const),
    );
    const plugin = webhooks({
      targets: [{ url: hanging.url }],
      outboxDir: tmp.dir,
      retry: { ...FAST, timeoutMs: 300, maxAttempts: 2 },
      env: {},
    });
    cleanups.push(
      tmp.cleanup,
      () => hanging.close(),
      () => plugin.close(),
    );
    const guarded = createGuard({ plugins: [workspacePolicy(), plugin] });
    const bare = createGuard({ plugins: [workspacePolicy()] });
    const ctx = context(tmp.dir);
    const call = { tool: 'file_write', args: { path: '/etc/passwd' } };
    const time = async (g: typeof bare, n: number) => {
      const samples: number[] = [];
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        await g.check(call, ctx);
        samples.push(performance.now() - t0);
      }
      samples.sort((a, b) => a - b);
      return { median: samples[Math.floor(n / 2)]!, max: samples[n - 1]! };
    };
    await time(bare, 20);
    const without = await time(bare, 200);
    const withHook = await time(guarded, 200);
    console.log(
      `decision latency, receiver hanging: median ${withHook.median.toFixed(3)} ms (max ${withHook.max.toFixed(3)}) vs no webhooks ${without.median.toFixed(3)} ms (max ${without.max.toFixed(3)})`,
    );
    // The request timeout is 300 ms; a decision that waited for the network would take at least that.
    expect(withHook.max).toBeLessThan(100);
    expect(withHook.median).toBeLessThan(without.median + 1);
    await hanging.waitFor(1);
    const t0 = Date.now();
    const dead = new Promise((resolve) => plugin.events.once('webhooks:dead-letter', resolve));
    await dead;
    // Two attempts, each cut at 300 ms: the queue moved on instead of waiting forever.
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(hanging.received.length).toBeGreaterThanOrEqual(2);
  });

  it('sends Slack {text, blocks} and Discord {content, embeds} shapes, and a custom template', async () => {
    const tmp = tempDir();
    const slack = await startReceiver();
    const discord = await startReceiver();
    const custom = await startReceiver();
    const plugin = webhooks({
      targets: [
        { url: slack.url, format: 'slack' },
        { url: discord.url, format: 'discord' },
        { url: custom.url, format: 'custom', template: (e) => `ALERT ${e.severity} ${e.path}` },
      ],
      outboxDir: tmp.dir,
      retry: FAST,
      env: {},
    });
    cleanups.push(
      tmp.cleanup,
      () => slack.close(),
      () => discord.close(),
      () => custom.close(),
      () => plugin.close(),
    );
    const guard = createGuard({ plugins: [workspacePolicy(), plugin] });
    await guard.check({ tool: 'file_write', args: { path: '/etc/<!channel>' } }, context(tmp.dir));
    expect(await plugin.flush(5_000)).toBe(true);
    const s = JSON.parse(slack.received[0]!.body);
    expect(typeof s.text).toBe('string');
    expect(s.text).toContain('&lt;!channel&gt;');
    expect(s.text).not.toContain('<!channel>');
    expect(Array.isArray(s.blocks)).toBe(true);
    expect(s.blocks[0]).toMatchObject({ type: 'header', text: { type: 'plain_text' } });
    expect(s.blocks.map((b: { type: string }) => b.type)).toEqual([
      'header',
      'section',
      'section',
      'context',
    ]);
    const d = JSON.parse(discord.received[0]!.body);
    expect(typeof d.content).toBe('string');
    expect(d.content.length).toBeLessThanOrEqual(2000);
    expect(d.allowed_mentions).toEqual({ parse: [] });
    expect(d.embeds).toHaveLength(1);
    expect(d.embeds[0]).toMatchObject({
      title: expect.any(String),
      color: expect.any(Number),
      fields: expect.any(Array),
    });
    expect(d.embeds[0].fields.find((f: { name: string }) => f.name === 'Path').value).toBe(
      '`/etc/<!channel>`',
    );
    expect(custom.received[0]!.body).toBe('ALERT critical /etc/<!channel>');
    expect(custom.received[0]!.headers['content-type']).toBe('text/plain; charset=utf-8');
  });

  it('notifies approval requests when notifyPrompts is set, without answering them', async () => {
    const { receiver, plugin, tmp } = await setup([], { notifyPrompts: true });
    void plugin;
    const guard = createGuard({ plugins: [workspacePolicy(), plugin] });
    const ctx = context(tmp.dir, { PROMPT_OUTSIDE: '1' });
    const decision = await guard.check({ tool: 'file_write', args: { path: '/etc/hosts' } }, ctx);
    // Nobody answers: core denies with PROMPT_UNANSWERED, so the tap did not answer (and did not fail).
    expect(decision.reasons[0]!.code).toBe('PROMPT_UNANSWERED');
    expect(await plugin.flush(5_000)).toBe(true);
    expect(bodies(receiver).map((b) => b.event)).toEqual(['approval.requested', 'security.violation']);
  });

  it('builds the event after the decision has returned: the tap only records the violation', async () => {
    let inCheck = false;
    const calls: boolean[] = [];
    const { receiver, plugin, tmp } = await setup([], {
      userOf: () => {
        calls.push(inCheck);
        return 'late-user';
      },
    });
    const guard = createGuard({ plugins: [workspacePolicy(), plugin] });
    inCheck = true;
    const decision = await guard.check(
      { tool: 'file_write', args: { path: '/etc/hosts' } },
      context(tmp.dir),
    );
    inCheck = false;
    expect(decision.action).toBe('deny');
    expect(await plugin.flush(5_000)).toBe(true);
    expect(calls).toEqual([false]);
    expect(bodies(receiver)[0]).toMatchObject({ user: 'late-user', decisionId: decision.id });
  });

  it('sends configured headers, and dead-letters a throwing custom template without a request', async () => {
    const tmp = tempDir();
    const receiver = await startReceiver();
    const plugin = webhooks({
      targets: [
        { url: receiver.url, name: 'with-auth', headers: { Authorization: 'Bearer t0ken' } },
        {
          url: receiver.url,
          name: 'broken',
          format: 'custom',
          template: () => {
            throw new Error('template bug');
          },
        },
      ],
      outboxDir: tmp.dir,
      retry: FAST,
      env: {},
    });
    cleanups.push(
      tmp.cleanup,
      () => receiver.close(),
      () => plugin.close(),
    );
    const { sampleEvent } = await import('../src/index.js');
    expect(plugin.notify(sampleEvent())).toBe(2);
    expect(await plugin.flush(5_000)).toBe(true);
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]!.headers.authorization).toBe('Bearer t0ken');
    const letters = await readDeadLetters(plugin.deadLetterFile);
    expect(letters).toEqual([
      expect.objectContaining({
        target: 'broken',
        reason: 'rejected',
        detail: 'template failed: template bug',
      }),
    ]);
  });

  it('treats a redirect as final (a webhook is not redirected to wherever the receiver says)', async () => {
    const { receiver, plugin } = await setup([
      { status: 302, headers: { location: 'http://evil.example/' } },
    ]);
    const { sampleEvent } = await import('../src/index.js');
    plugin.notify(sampleEvent());
    expect(await plugin.flush(5_000)).toBe(true);
    expect(receiver.received).toHaveLength(1);
    expect(plugin.stats()).toMatchObject({ deadLettered: 1, retried: 0 });
  });

  it('writes nothing pending once drained (the outbox is compacted)', async () => {
    const { plugin, guard, ctx } = await setup();
    for (let i = 0; i < 5; i++) await guard.check({ tool: 'file_write', args: { path: `/etc/f${i}` } }, ctx);
    expect(await plugin.flush(5_000)).toBe(true);
    expect(readFileSync(plugin.outboxFile, 'utf8')).toBe('');
  });
});
