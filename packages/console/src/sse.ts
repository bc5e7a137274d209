import type { ServerResponse } from 'node:http';

/** One server-sent-events connection that never makes its writer wait. */
export interface SseChannel {
  send(event: string, data: unknown): void;
  /** Events not sent because the client was too slow (its unsent backlog was over the limit). */
  readonly dropped: number;
  close(): void;
}

/**
 * Opens an SSE response. `send` writes at once when the socket keeps up; when the client's backlog (bytes
 * written but not yet taken by the kernel) is over `maxBacklog`, the event is dropped and counted instead —
 * nothing is ever awaited on behalf of a client, so a slow or stalled browser costs the sender nothing.
 */
export function openSse(res: ServerResponse, maxBacklog = 256 * 1024, heartbeatMs = 15_000): SseChannel {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.write('retry: 2000\n\n');
  let dropped = 0;
  let closed = false;
  const beat = setInterval(() => {
    if (!closed && res.writableLength < maxBacklog) res.write(': keep-alive\n\n');
  }, heartbeatMs);
  beat.unref();
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(beat);
    res.end();
  };
  res.on('close', close);
  return {
    send(event, data) {
      if (closed) return;
      if (res.writableLength > maxBacklog) {
        dropped++;
        return;
      }
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    get dropped() {
      return dropped;
    },
    close,
  };
}
