import { describe, expect, it } from 'vitest';
import { computeSignature, signatureHeaders, verifyWebhookSignature } from '../src/index.js';

const body = '{"event":"security.violation","path":"/etc/passwd"}';
const now = 1_770_000_000_000;

describe('verifyWebhookSignature', () => {
  it('accepts what signatureHeaders produced, from Node headers (any case) and from fetch Headers', () => {
    const signed = signatureHeaders('s3cret', body, now);
    expect(signed['X-Toolgate-Signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature({ body, headers: signed, secret: 's3cret', now })).toEqual({
      ok: true,
      timestamp: now / 1000,
    });
    const lower = Object.fromEntries(Object.entries(signed).map(([k, v]) => [k.toLowerCase(), v]));
    expect(
      verifyWebhookSignature({ body: Buffer.from(body), headers: lower, secret: 's3cret', now }).ok,
    ).toBe(true);
    expect(verifyWebhookSignature({ body, headers: new Headers(signed), secret: 's3cret', now }).ok).toBe(
      true,
    );
  });

  it('signs "timestamp.body": the documented scheme a receiver can recompute', async () => {
    const { createHmac } = await import('node:crypto');
    const ts = String(now / 1000);
    expect(computeSignature('k', ts, body)).toBe(
      `sha256=${createHmac('sha256', 'k').update(`${ts}.${body}`).digest('hex')}`,
    );
  });

  it('rejects a tampered body, a wrong secret, and a swapped timestamp', () => {
    const signed = signatureHeaders('s3cret', body, now);
    expect(verifyWebhookSignature({ body: `${body} `, headers: signed, secret: 's3cret', now })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    expect(verifyWebhookSignature({ body, headers: signed, secret: 'other', now })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    const moved = { ...signed, 'X-Toolgate-Timestamp': String(now / 1000 + 1) };
    expect(verifyWebhookSignature({ body, headers: moved, secret: 's3cret', now })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
  });

  it('rejects replays outside the tolerance window, in both directions', () => {
    const signed = signatureHeaders('s3cret', body, now);
    expect(verifyWebhookSignature({ body, headers: signed, secret: 's3cret', now: now + 301_000 })).toEqual({
      ok: false,
      reason: 'expired',
    });
    expect(verifyWebhookSignature({ body, headers: signed, secret: 's3cret', now: now - 301_000 })).toEqual({
      ok: false,
      reason: 'expired',
    });
    expect(verifyWebhookSignature({ body, headers: signed, secret: 's3cret', now: now + 299_000 }).ok).toBe(
      true,
    );
    expect(
      verifyWebhookSignature({
        body,
        headers: signed,
        secret: 's3cret',
        now: now + 20_000,
        toleranceSec: 10,
      }),
    ).toEqual({ ok: false, reason: 'expired' });
  });

  it('accepts any of several secrets during a rotation', () => {
    const signed = signatureHeaders('new', body, now);
    expect(verifyWebhookSignature({ body, headers: signed, secret: ['old', 'new'], now }).ok).toBe(true);
    expect(verifyWebhookSignature({ body, headers: signed, secret: ['old'], now }).ok).toBe(false);
  });

  it('reports missing and malformed headers without throwing', () => {
    const signed = signatureHeaders('s3cret', body, now);
    expect(verifyWebhookSignature({ body, headers: {}, secret: 's3cret', now })).toEqual({
      ok: false,
      reason: 'missing-signature',
    });
    expect(
      verifyWebhookSignature({
        body,
        headers: { 'x-toolgate-signature': signed['X-Toolgate-Signature'] },
        secret: 's3cret',
        now,
      }),
    ).toEqual({ ok: false, reason: 'missing-timestamp' });
    for (const sig of ['sha256=zz', 'md5=abc', `sha256=${'a'.repeat(63)}`, `sha256=${'a'.repeat(66)}`]) {
      expect(
        verifyWebhookSignature({
          body,
          headers: { ...signed, 'X-Toolgate-Signature': sig },
          secret: 's3cret',
          now,
        }),
      ).toEqual({ ok: false, reason: 'malformed' });
    }
    expect(
      verifyWebhookSignature({
        body,
        headers: { ...signed, 'X-Toolgate-Timestamp': '12abc' },
        secret: 's3cret',
        now,
      }),
    ).toEqual({ ok: false, reason: 'malformed' });
  });

  it('throws a clear error on bad input instead of verifying against nothing', () => {
    const signed = signatureHeaders('s3cret', body, now);
    expect(() => verifyWebhookSignature({ body, headers: signed, secret: '', now })).toThrow(
      /secret must be/,
    );
    expect(() => verifyWebhookSignature({ body, headers: signed, secret: [], now })).toThrow(
      /secret must be/,
    );
    expect(() =>
      verifyWebhookSignature({ body: { a: 1 } as unknown as string, headers: signed, secret: 'x', now }),
    ).toThrow(/body must be the raw body/);
    expect(() => verifyWebhookSignature({ body, headers: signed, secret: 'x', toleranceSec: -1 })).toThrow(
      /toleranceSec/,
    );
    expect(() => verifyWebhookSignature(null as never)).toThrow(/TOOLGATE|must be an object/);
  });
});
