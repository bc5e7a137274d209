import { randomUUID } from 'node:crypto';
import { describeValue, ToolgateError } from '@toolgate/core';
import { type CompiledWebhook, detectFormat, parseUrl } from './compileOptions.js';
import { sampleEvent } from './event.js';
import type { WebhookFormat } from './formats.js';
import { createHttpAgent, sendHttp } from './sendHttp.js';

export interface TestEventOptions {
  url: string;
  secret?: string;
  /** Default: detected from the URL, as for configured targets. `custom` is not available here. */
  format?: Exclude<WebhookFormat, 'custom'>;
  timeoutMs?: number;
}

export interface TestEventResult {
  ok: boolean;
  /** HTTP status, when the receiver answered. */
  status?: number;
  /** The receiver's answer (first 8 KiB), or what went wrong. */
  response: string;
  deliveryId: string;
  format: WebhookFormat;
  elapsedMs: number;
}

/**
 * Sends one signed sample violation, once, with no outbox and no retry: what `toolgate webhooks test` runs.
 *
 * @example
 * ```ts
 * import { sendTestEvent } from '@toolgate/webhooks';
 * const r = await sendTestEvent({ url: 'http://127.0.0.1:8080/hook', secret: 's3cret' });
 * console.log(r.status, r.response);
 * ```
 */
export async function sendTestEvent(options: TestEventOptions): Promise<TestEventResult> {
  const url = parseUrl('webhooks test', 'url', options?.url);
  const format = options.format ?? detectFormat(url);
  if (!['json', 'slack', 'discord'].includes(format)) {
    throw new ToolgateError(
      'TOOLGATE_ERR_INVALID_OPTIONS',
      `webhooks test: format must be json, slack or discord, got ${describeValue(format)}`,
      { field: 'format' },
    );
  }
  if (options.secret !== undefined && (typeof options.secret !== 'string' || options.secret === '')) {
    throw new ToolgateError(
      'TOOLGATE_ERR_INVALID_OPTIONS',
      'webhooks test: secret must be a non-empty string',
      { field: 'secret' },
    );
  }
  const timeoutMs = options.timeoutMs ?? 10_000;
  const target: CompiledWebhook = {
    kind: 'webhook',
    key: 'test',
    url,
    format,
    min: 0,
    headers: {},
    ...(options.secret ? { secret: options.secret } : {}),
    events: new Set(['security.violation']),
  };
  const agent = createHttpAgent(timeoutMs);
  const deliveryId = randomUUID();
  const started = performance.now();
  try {
    const r = await sendHttp(target, sampleEvent(), { agent, timeoutMs, deliveryId });
    const elapsedMs = Math.round(performance.now() - started);
    return r.ok
      ? {
          ok: true,
          ...(r.status ? { status: r.status } : {}),
          response: r.response ?? '',
          deliveryId,
          format,
          elapsedMs,
        }
      : {
          ok: false,
          ...(r.status ? { status: r.status } : {}),
          response: r.error,
          deliveryId,
          format,
          elapsedMs,
        };
  } finally {
    await agent.close().catch(() => undefined);
  }
}
