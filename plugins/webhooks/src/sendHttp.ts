import { Agent, request } from 'undici';
import type { CompiledWebhook } from './compileOptions.js';
import type { AttemptResult } from './delivery.js';
import type { NotificationEvent } from './event.js';
import { renderBody } from './formats.js';
import { parseRetryAfter } from './retryAfter.js';
import { signatureHeaders } from './sign.js';

const USER_AGENT = 'toolgate-webhooks/0.1';
/** Enough of a receiver's answer for a log line or the CLI; the rest is discarded unread. */
const MAX_RESPONSE = 8 * 1024;

/** One keep-alive pool for every target of a plugin; idle sockets close on their own and never hold the process. */
export function createHttpAgent(timeoutMs: number): Agent {
  return new Agent({
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 30_000,
    connections: 8,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connect: { timeout: timeoutMs },
  });
}

// 408, 425 and 429 say "not now"; 5xx say "not my fault". Every other 4xx (and 3xx: a webhook is not
// redirected) will fail the same way forever, so retrying it only delays the dead letter.
function retryable(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

async function readCapped(body: AsyncIterable<Uint8Array> & { destroy?(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(Buffer.from(chunk));
    size += chunk.length;
    if (size >= MAX_RESPONSE) {
      body.destroy?.();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, MAX_RESPONSE);
}

export interface HttpSendOptions {
  agent: Agent;
  timeoutMs: number;
  deliveryId: string;
  signal?: AbortSignal;
}

/**
 * POSTs one event to one target. The whole attempt, connect to last byte, is bounded by `timeoutMs`, so a
 * receiver that hangs costs one timeout, never a stuck queue.
 */
export async function sendHttp(
  target: CompiledWebhook,
  event: NotificationEvent,
  options: HttpSendOptions,
): Promise<AttemptResult> {
  let rendered: { body: string; contentType: string };
  try {
    rendered = renderBody(event, target.format, target.template);
  } catch (error) {
    return { ok: false, retry: false, error: `template failed: ${(error as Error).message}` };
  }
  const headers: Record<string, string> = {
    ...target.headers,
    'content-type': rendered.contentType,
    'user-agent': USER_AGENT,
    'x-toolgate-delivery': options.deliveryId,
    'x-toolgate-event': event.event,
    ...(target.secret ? signatureHeaders(target.secret, rendered.body) : {}),
  };
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  try {
    const res = await request(target.url, {
      method: 'POST',
      body: rendered.body,
      headers,
      dispatcher: options.agent,
      signal,
    });
    // Always consume the body: an unread body pins the keep-alive socket.
    const response = await readCapped(res.body);
    if (res.statusCode >= 200 && res.statusCode < 300) return { ok: true, status: res.statusCode, response };
    const retryAfterMs = parseRetryAfter(res.headers['retry-after']);
    return {
      ok: false,
      retry: retryable(res.statusCode),
      status: res.statusCode,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      error: `HTTP ${res.statusCode}${response ? `: ${response.slice(0, 200)}` : ''}`,
    };
  } catch (error) {
    const timedOut = timeout.aborted;
    const message = timedOut
      ? `no response within ${options.timeoutMs} ms`
      : error instanceof Error
        ? `${(error as NodeJS.ErrnoException).code ?? error.name}: ${error.message}`
        : String(error);
    return { ok: false, retry: true, error: message };
  }
}
