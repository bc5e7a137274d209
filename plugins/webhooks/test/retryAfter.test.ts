import { afterEach, describe, expect, it } from 'vitest';
import { sampleEvent, webhooks } from '../src/index.js';
import { backoffDelay, parseRetryAfter } from '../src/retryAfter.js';
import { tempDir } from './helpers/guard.js';
import { startReceiver } from './helpers/receiver.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('Retry-After and backoff', () => {
  it('parses delta-seconds and HTTP-dates, and ignores garbage', () => {
    const now = Date.parse('2026-02-09T10:30:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(['3'], now)).toBe(3_000);
    expect(parseRetryAfter('Mon, 09 Feb 2026 10:30:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Mon, 09 Feb 2026 10:29:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('backs off exponentially with jitter between half and all of the nominal delay, capped', () => {
    expect(backoffDelay(1, 100, 10_000, () => 0)).toBe(50);
    expect(backoffDelay(1, 100, 10_000, () => 1)).toBe(100);
    expect(backoffDelay(4, 100, 10_000, () => 0)).toBe(400);
    expect(backoffDelay(4, 100, 10_000, () => 1)).toBe(800);
    expect(backoffDelay(30, 100, 10_000, () => 1)).toBe(10_000);
    const spread = new Set(Array.from({ length: 20 }, () => backoffDelay(3, 100, 10_000)));
    expect(spread.size).toBeGreaterThan(1);
  });

  it('caps a hostile Retry-After at maxRetryAfterMs instead of parking the queue for an hour', async () => {
    const tmp = tempDir();
    const receiver = await startReceiver(0, [{ status: 503, headers: { 'retry-after': '3600' } }]);
    const plugin = webhooks({
      targets: [{ url: receiver.url }],
      outboxDir: tmp.dir,
      retry: { maxRetryAfterMs: 200, baseDelayMs: 10, timeoutMs: 1_000 },
      env: {},
    });
    cleanups.push(
      tmp.cleanup,
      () => receiver.close(),
      () => plugin.close(),
    );
    plugin.notify(sampleEvent());
    expect(await plugin.flush(5_000)).toBe(true);
    expect(receiver.received).toHaveLength(2);
    const gap = receiver.received[1]!.at - receiver.received[0]!.at;
    expect(gap).toBeGreaterThanOrEqual(180);
    expect(gap).toBeLessThan(1_500);
  });
});
