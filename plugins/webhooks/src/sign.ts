import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-toolgate-signature';
export const TIMESTAMP_HEADER = 'x-toolgate-timestamp';
export const DELIVERY_HEADER = 'x-toolgate-delivery';

/** `sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">`: binding the timestamp makes a captured request unreplayable after the window. */
export function computeSignature(secret: string, timestamp: string, body: string | Uint8Array): string {
  const mac = createHmac('sha256', secret);
  mac.update(`${timestamp}.`);
  mac.update(body);
  return `sha256=${mac.digest('hex')}`;
}

/** The signing headers for one attempt; the timestamp is fresh on every retry so the replay window holds. */
export function signatureHeaders(secret: string, body: string, nowMs = Date.now()): Record<string, string> {
  const timestamp = String(Math.floor(nowMs / 1000));
  return {
    'X-Toolgate-Timestamp': timestamp,
    'X-Toolgate-Signature': computeSignature(secret, timestamp, body),
  };
}
