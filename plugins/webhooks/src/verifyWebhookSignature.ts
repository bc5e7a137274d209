import { timingSafeEqual } from 'node:crypto';
import { describeValue, ToolgateError } from '@toolgate/core';
import { computeSignature, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './sign.js';

export type HeaderBag = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyOptions {
  /** The raw request body exactly as received (not re-serialised JSON). */
  body: string | Uint8Array;
  /** Request headers: a Node `IncomingHttpHeaders`, a plain object (any case) or a fetch `Headers`. */
  headers: HeaderBag;
  /** The shared secret, or several during a rotation (any one may match). */
  secret: string | readonly string[];
  /** Largest accepted distance between the timestamp and now, in seconds (default 300). */
  toleranceSec?: number;
  /** Now, in epoch milliseconds (tests). */
  now?: number;
}

export type VerifyResult =
  | { ok: true; timestamp: number }
  | { ok: false; reason: 'missing-signature' | 'missing-timestamp' | 'malformed' | 'expired' | 'mismatch' };

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
    if (key.toLowerCase() !== name) continue;
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  }
  return undefined;
}

function invalid(field: string, value: unknown, expected: string): ToolgateError {
  return new ToolgateError(
    'TOOLGATE_ERR_INVALID_OPTIONS',
    `verifyWebhookSignature: ${field} must be ${expected}, got ${describeValue(value)}`,
    { field },
  );
}

/**
 * Checks a request signed by @toolgate/webhooks: the HMAC must match (compared in constant time) and the
 * timestamp must be within `toleranceSec` of now, so a captured request cannot be replayed later. Receivers
 * should also de-duplicate on `X-Toolgate-Delivery`: delivery is at-least-once.
 *
 * @example
 * ```ts
 * import { verifyWebhookSignature } from '@toolgate/webhooks';
 * const result = verifyWebhookSignature({ body: rawBody, headers: req.headers, secret: process.env.TOOLGATE_WEBHOOK_SECRET! });
 * if (!result.ok) return res.writeHead(401).end(result.reason);
 * ```
 */
export function verifyWebhookSignature(options: VerifyOptions): VerifyResult {
  if (options === null || typeof options !== 'object') throw invalid('(options)', options, 'an object');
  const { body, headers, toleranceSec = 300 } = options;
  const secrets = typeof options.secret === 'string' ? [options.secret] : options.secret;
  if (
    !Array.isArray(secrets) ||
    secrets.length === 0 ||
    secrets.some((s) => typeof s !== 'string' || s === '')
  ) {
    throw invalid('secret', options.secret, 'a non-empty string or array of non-empty strings');
  }
  if (typeof body !== 'string' && !(body instanceof Uint8Array))
    throw invalid('body', body, 'the raw body as a string or bytes');
  if (headers === null || typeof headers !== 'object')
    throw invalid('headers', headers, 'an object of request headers');
  if (typeof toleranceSec !== 'number' || !(toleranceSec > 0))
    throw invalid('toleranceSec', toleranceSec, 'a positive number of seconds');

  const signature = header(headers, SIGNATURE_HEADER);
  if (signature === undefined) return { ok: false, reason: 'missing-signature' };
  const timestamp = header(headers, TIMESTAMP_HEADER);
  if (timestamp === undefined) return { ok: false, reason: 'missing-timestamp' };
  if (!/^\d{1,12}$/.test(timestamp) || !/^sha256=[0-9a-f]{64}$/i.test(signature))
    return { ok: false, reason: 'malformed' };
  const seconds = Number(timestamp);
  const now = (options.now ?? Date.now()) / 1000;
  if (Math.abs(now - seconds) > toleranceSec) return { ok: false, reason: 'expired' };

  const given = Buffer.from(signature.slice(7).toLowerCase(), 'hex');
  let match = false;
  for (const secret of secrets) {
    const expected = Buffer.from(computeSignature(secret, timestamp, body).slice(7), 'hex');
    // Both are 32 bytes by construction (the regex above), so timingSafeEqual never throws here.
    if (timingSafeEqual(given, expected)) match = true;
  }
  return match ? { ok: true, timestamp: seconds } : { ok: false, reason: 'mismatch' };
}
