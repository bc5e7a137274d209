import { readFileSync } from 'node:fs';
import { ToolgateError } from '@toolgate/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type WebhooksOptions, webhooks } from '../src/index.js';
import { tempDir } from './helpers/guard.js';
import { startReceiver } from './helpers/receiver.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function cases<T>(file: string): T[] {
  return readFileSync(new URL(`./fixtures/${file}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}

function thrown(fn: () => unknown): ToolgateError {
  try {
    fn();
  } catch (error) {
    return error as ToolgateError;
  }
  throw new Error('expected a throw');
}

describe('options are validated at construction', () => {
  for (const c of cases<{ name: string; options: WebhooksOptions; error: string }>('invalid-options.jsonl')) {
    it(`rejects: ${c.name}`, () => {
      const tmp = tempDir();
      cleanups.push(tmp.cleanup);
      const error = thrown(() => webhooks({ outboxDir: tmp.dir, env: {}, ...c.options }));
      expect(error).toBeInstanceOf(ToolgateError);
      expect(error.code).toBe('TOOLGATE_ERR_INVALID_OPTIONS');
      expect(error.message).toContain(c.error);
    });
  }

  for (const c of cases<{ name: string; env: Record<string, string>; error: string }>('invalid-env.jsonl')) {
    it(`rejects environment: ${c.name}`, () => {
      const tmp = tempDir();
      cleanups.push(tmp.cleanup);
      const options: WebhooksOptions = {
        env: c.env,
        ...(c.env.TOOLGATE_WEBHOOKS_OUTBOX ? {} : { outboxDir: tmp.dir }),
      };
      const error = thrown(() => webhooks(options));
      expect(error.code).toBe('TOOLGATE_ERR_INVALID_CONFIG');
      expect(error.message).toContain(c.error);
    });
  }
});

describe('environment configuration (seed 001)', () => {
  it('TOOLGATE_VIOLATION_WEBHOOKS="url1,url2" delivers to both, signed with TOOLGATE_WEBHOOK_SECRET', async () => {
    const tmp = tempDir();
    const a = await startReceiver();
    const b = await startReceiver();
    cleanups.push(
      tmp.cleanup,
      () => a.close(),
      () => b.close(),
    );
    const plugin = webhooks({
      env: {
        TOOLGATE_VIOLATION_WEBHOOKS: ` ${a.url} ,${b.url},`,
        TOOLGATE_WEBHOOK_SECRET: 'env-secret',
        TOOLGATE_WEBHOOK_MIN_SEVERITY: 'low',
        TOOLGATE_WEBHOOKS_OUTBOX: tmp.dir,
      },
      retry: { baseDelayMs: 10, timeoutMs: 1_000 },
    });
    cleanups.push(() => plugin.close());
    expect(plugin.outboxFile.startsWith(tmp.dir)).toBe(true);
    expect(plugin.targets).toHaveLength(2);
    const { sampleEvent, verifyWebhookSignature } = await import('../src/index.js');
    expect(plugin.notify({ ...sampleEvent(), severity: 'low' })).toBe(2);
    expect(await plugin.flush(5_000)).toBe(true);
    for (const r of [a, b]) {
      expect(r.received).toHaveLength(1);
      expect(
        verifyWebhookSignature({
          body: r.received[0]!.body,
          headers: r.received[0]!.headers,
          secret: 'env-secret',
        }).ok,
      ).toBe(true);
    }
  });

  it('detects Slack and Discord from the URL, and an URL given twice is one target', () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const plugin = webhooks({
      outboxDir: tmp.dir,
      targets: [{ url: 'https://hooks.slack.com/services/T/B/X' }],
      env: {
        TOOLGATE_VIOLATION_WEBHOOKS:
          'https://hooks.slack.com/services/T/B/X,https://discord.com/api/webhooks/1/abc,https://siem.example/in',
      },
    });
    cleanups.push(() => plugin.close());
    expect(plugin.targets.map((t) => t.split(':')[0])).toEqual(['slack', 'discord', 'json']);
    // Webhook URLs are secrets: the outbox names targets by hash.
    expect(plugin.targets.join(' ')).not.toContain('hooks.slack.com');
  });

  it('an empty env object turns environment configuration off', () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const plugin = webhooks({ outboxDir: tmp.dir, env: {} });
    cleanups.push(() => plugin.close());
    expect(plugin.targets).toEqual([]);
  });
});

describe('notify() input', () => {
  it('throws a clear error for a malformed event instead of sending garbage', () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const plugin = webhooks({ outboxDir: tmp.dir, targets: [{ url: 'http://127.0.0.1:9/x' }], env: {} });
    cleanups.push(() => plugin.close());
    for (const bad of [
      null,
      'x',
      {},
      { event: 'security.violation', severity: 'severe' },
      { event: 'other', severity: 'high' },
    ]) {
      expect(() => plugin.notify(bad as never)).toThrow(/webhooks.notify: event must be a NotificationEvent/);
    }
    expect(plugin.stats().enqueued).toBe(0);
  });
});
