import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGuard } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decisionStream } from '../src/index.js';
import { openSse, type SseChannel } from '../src/sse.js';

const ctx = { sessionId: 's', agentId: 'a', cwd: '/', workspace: '/', home: '/', env: {} };

describe('decisionStream: the guard never waits for the console', () => {
  it('hands decisions over in batches off the decision path, keeps the recent ones, counts what it dropped', async () => {
    const stream = decisionStream({ flushMs: 60_000, maxQueued: 5, keep: 3 });
    const guard = createGuard({ plugins: [stream] });
    const batches: Array<{ n: number; dropped: number; tools: string[] }> = [];
    stream.subscribe((batch, dropped) =>
      batches.push({ n: batch.length, dropped, tools: batch.map((d) => d.tool) }),
    );
    for (let i = 0; i < 8; i++) await guard.check({ tool: `t${i}`, args: {} }, ctx);
    // Nothing was handed to the listener during the calls: the flush is a timer's job.
    expect(batches).toEqual([]);
    const recent = stream.recent();
    expect(recent.map((d) => d.tool)).toEqual(['t2', 't3', 't4']);
    expect(batches).toEqual([{ n: 5, dropped: 3, tools: ['t0', 't1', 't2', 't3', 't4'] }]);
    expect(recent[0]).toMatchObject({ action: 'allow', agentId: 'a', sessionId: 's' });
    stream.close();
  });

  it('a listener that throws loses its batch; the others and the guard are unaffected', async () => {
    const stream = decisionStream({ flushMs: 60_000 });
    const guard = createGuard({ plugins: [stream] });
    let got = 0;
    stream.subscribe(() => {
      throw new Error('broken page');
    });
    stream.subscribe((b) => {
      got += b.length;
    });
    expect((await guard.check({ tool: 'x', args: {} }, ctx)).action).toBe('allow');
    stream.recent();
    expect(got).toBe(1);
    stream.close();
  });

  it('bad options fail at construction, naming the field', () => {
    expect(() => decisionStream({ keep: 0 })).toThrow(/decisionStream: keep must be a positive integer/);
    expect(() => decisionStream({ flushMs: 1.5 })).toThrow(/flushMs/);
  });
});

describe('openSse: a client that stops reading is dropped for, never waited on', () => {
  let server: Server;
  let channel: SseChannel | undefined;
  let url: string;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      channel = openSse(res, 64 * 1024);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    channel?.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('sends while the socket keeps up, then drops and counts once the backlog is over the limit', async () => {
    const paused = await new Promise<import('node:http').IncomingMessage>((resolve) => {
      request(url, (res) => {
        res.pause();
        resolve(res);
      }).end();
    });
    for (let i = 0; i < 50 && !channel; i++) await new Promise((r) => setTimeout(r, 10));
    const big = 'x'.repeat(256 * 1024);
    // The kernel's socket buffers take some; the writer's own backlog fills next; then every send drops.
    for (let i = 0; i < 200; i++) channel!.send('decisions', { big });
    expect(channel!.dropped).toBeGreaterThan(0);
    const dropped = channel!.dropped;
    channel!.send('decisions', { small: 1 });
    expect(channel!.dropped).toBe(dropped + 1);
    paused.destroy();
  });
});
