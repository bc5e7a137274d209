import type { Socket } from 'node:net';
import { type NetMethod, normaliseHost } from '@toolgate/core';
import type { ConnectionRecord } from './connectionRecord.js';
import { denialText, httpResponse } from './denial.js';
import { type DialOptions, dialTunnel, dialUpstream, relay, UpstreamRefused, viaUpstream } from './dial.js';
import {
  BodyTracker,
  clientResponseHead,
  headEnd,
  MAX_HEAD,
  parseRequestHead,
  type RequestHead,
  requestFraming,
  upstreamHead,
} from './httpHead.js';
import { type Judge, record } from './judge.js';
import { parseAuthority, tunnelScheme } from './target.js';

// Sockets, not node:http. The proxy starts fresh for every sandboxed call, so its first request is the one
// that counts, and Node's HTTP server and client (parser, IncomingMessage, ServerResponse, ClientRequest, an
// Agent) cost ≈ 7 ms on that first request and ≈ 2 ms on the next ones, against ≈ 1 ms for a socket relay
// (measured on the bench machine; see the README). What the proxy must read of HTTP is small and lives in
// ./httpHead.ts, strict where a lenient reading could be smuggled past.

/** Methods that only fetch: judged as `read` when they carry no body; everything else sends data (`write`). */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface HttpProxyOptions extends DialOptions {
  judge: Judge;
  onConnection?: ((record: ConnectionRecord) => void) | undefined;
}

/**
 * Runs the request path's pure parts once on canned text, so the first real request does not pay for their
 * first compilation (a proxy serves one sandboxed call: its first request is the one that counts). No I/O,
 * nothing judged is recorded.
 */
export function warmUp(decide: (host: string) => unknown): void {
  const head = parseRequestHead(
    'GET http://warm.invalid/x?y HTTP/1.1\r\nHost: warm.invalid\r\nAccept: */*\r\n\r\n',
  );
  if (!head.ok) return;
  const framing = requestFraming(head.value);
  if (framing.ok) new BodyTracker(framing.value).take(Buffer.alloc(0));
  const url = new URL(head.value.target);
  if (framing.ok) upstreamHead(head.value, `${url.pathname}${url.search}`, url.host, framing.value);
  clientResponseHead('HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n');
  decide(normaliseHost(url.hostname) ?? 'warm.invalid');
}

/** The text a client reads when the host (or the upstream proxy on the way) could not be reached. */
export function unreachable(host: string, port: number, error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return e instanceof UpstreamRefused
    ? `toolgate: ${host}:${port} could not be reached: ${e.message}\n`
    : `toolgate: ${host}:${port} could not be reached: ${e.code ?? e.message}\n`;
}

function refuse(client: Socket, status: number, reason: string, text: string): void {
  client.end(httpResponse(status, reason, text));
  client.on('data', () => {}); // read and drop what the client still sends, so its close is seen
}

/**
 * Serves one HTTP proxy client whose first bytes (`first`) the listener read: a CONNECT tunnel (judged once,
 * as `write`: what runs inside is opaque), or one plain-HTTP request in absolute form, judged by host, port
 * and method (`read` for GET, HEAD and OPTIONS without a body) and sent upstream with `Connection: close`; the
 * client's connection closes after the response, so a keep-alive client opens a new one — and is judged
 * again — for its next request. Everything else is refused with 400.
 */
export function serveHttp(client: Socket, first: Buffer, options: HttpProxyOptions): void {
  let buf: Buffer = first;
  const onData = (chunk: Buffer): void => {
    buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
    take();
  };
  const take = (): void => {
    const end = headEnd(buf);
    if (end < 0) {
      if (buf.length > MAX_HEAD) {
        client.off('data', onData);
        refuse(client, 431, 'Request Header Fields Too Large', 'toolgate: the request head is over 64 KiB\n');
      }
      return;
    }
    client.off('data', onData);
    client.pause();
    const head = parseRequestHead(buf.toString('latin1', 0, end));
    const rest = buf.subarray(end);
    if (!head.ok) {
      refuse(client, 400, 'Bad Request', `toolgate: malformed proxy request: ${head.reason}\n`);
      return;
    }
    const run = head.value.method === 'CONNECT' ? tunnel : forward;
    void run(client, head.value, rest, options).catch(() => client.destroy());
  };
  client.on('data', onData);
  client.resume();
  take();
}

async function forward(
  client: Socket,
  head: RequestHead,
  rest: Buffer,
  options: HttpProxyOptions,
): Promise<void> {
  let url: URL | undefined;
  try {
    url = new URL(head.target);
  } catch {
    url = undefined;
  }
  if (url === undefined || url.protocol !== 'http:' || !/^http:\/\//i.test(head.target))
    // An origin-form request (`GET / HTTP/1.1` to the proxy itself) or another scheme: not a proxy request.
    return refuse(
      client,
      400,
      'Bad Request',
      `toolgate: the sandbox proxy takes http:// URLs in absolute form and CONNECT, got ${JSON.stringify(head.target)}\n`,
    );
  if (head.headers.some(([n]) => n.toLowerCase() === 'upgrade'))
    // WebSocket over plain HTTP and other upgrades: an upgraded stream is not judged per request.
    return refuse(client, 501, 'Not Implemented', 'toolgate: the sandbox proxy does not relay upgrades\n');
  const framing = requestFraming(head);
  if (!framing.ok)
    return refuse(client, 400, 'Bad Request', `toolgate: malformed proxy request: ${framing.reason}\n`);
  const host = normaliseHost(url.hostname);
  const port = url.port === '' ? 80 : Number(url.port);
  const method: NetMethod = READ_METHODS.has(head.method) && framing.value.kind === 'none' ? 'read' : 'write';
  if (host === null) {
    record(options.onConnection, {
      host: url.hostname,
      port,
      scheme: 'http',
      method,
      via: 'http',
      action: 'deny',
      rule: 'not a host name',
      time: Date.now(),
    });
    return refuse(
      client,
      400,
      'Bad Request',
      `toolgate: ${JSON.stringify(url.hostname)} is not a host name\n`,
    );
  }
  const verdict = await options.judge({ host, port, scheme: 'http', method }, 'http');
  if (verdict.action === 'deny')
    return refuse(client, 403, 'Forbidden', denialText(host, port, verdict.rule, verdict.source));

  const body = new BodyTracker(framing.value);
  // Through the machine's own proxy (`upstream`), the request goes in absolute form; otherwise straight out.
  const via = viaUpstream(host, options);
  let upstream: Socket;
  try {
    upstream = via ? await dialUpstream(via) : await dialTunnel(host, port, options);
  } catch (error) {
    return refuse(client, 502, 'Bad Gateway', unreachable(host, port, error));
  }
  if (client.destroyed) return void upstream.destroy();
  let answered = false; // a byte of the response reached the client
  const fail = (text: string): void => {
    upstream.destroy();
    if (answered || !client.writable) client.destroy();
    else refuse(client, 502, 'Bad Gateway', text);
  };
  // The client's bytes, up to the end of this request's body; what follows (a pipelined request) is dropped.
  const send = (chunk: Buffer): void => {
    if (body.done || chunk.length === 0) return;
    let n: number;
    try {
      n = body.take(chunk);
    } catch (error) {
      upstream.destroy();
      client.destroy();
      record(options.onConnection, {
        host,
        port,
        scheme: 'http',
        method,
        via: 'http',
        action: 'deny',
        rule: `malformed request body: ${(error as Error).message}`,
        time: Date.now(),
      });
      return;
    }
    if (!upstream.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
      client.pause();
      upstream.once('drain', () => client.resume());
    }
  };
  const target = via ? `http://${url.host}${url.pathname}${url.search}` : `${url.pathname}${url.search}`;
  upstream.write(upstreamHead(head, target, url.host, framing.value, via?.authorization));
  send(rest);
  client.on('data', send);
  client.resume();
  // The response: heads rewritten to `Connection: close` (1xx interim heads passed as they are), then bytes.
  let pending: Buffer = Buffer.alloc(0);
  const onResponse = (chunk: Buffer): void => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      const end = headEnd(pending);
      if (end < 0) {
        if (pending.length > MAX_HEAD) break; // not a head the proxy can read: pass it on as it is
        return;
      }
      const { head: out, final } = clientResponseHead(pending.toString('latin1', 0, end));
      answered = true;
      client.write(Buffer.from(out, 'latin1'));
      pending = pending.subarray(end);
      if (final) break;
    }
    upstream.off('data', onResponse);
    answered = true;
    if (pending.length > 0) client.write(pending);
    upstream.pipe(client);
  };
  upstream.on('data', onResponse);
  upstream.on('end', () => {
    if (!answered) fail(`toolgate: ${host}:${port} closed the connection without answering\n`);
  });
  upstream.on('error', (error) => fail(unreachable(host, port, error)));
  client.on('error', () => upstream.destroy());
  client.on('close', () => upstream.destroy());
  client.on('end', () => {
    if (!body.done) upstream.destroy(); // the client gave up before its request was whole
  });
}

async function tunnel(
  client: Socket,
  head: RequestHead,
  rest: Buffer,
  options: HttpProxyOptions,
): Promise<void> {
  const { judge, onConnection } = options;
  const target = parseAuthority(head.target);
  if (target === undefined) {
    record(onConnection, {
      host: head.target,
      port: 0,
      scheme: 'tcp',
      method: 'write',
      via: 'connect',
      action: 'deny',
      rule: 'not a host:port',
      time: Date.now(),
    });
    return refuse(
      client,
      400,
      'Bad Request',
      `toolgate: CONNECT needs host:port, got ${JSON.stringify(head.target)}\n`,
    );
  }
  const { host, port } = target;
  const verdict = await judge({ host, port, scheme: tunnelScheme(port), method: 'write' }, 'connect');
  if (verdict.action === 'deny')
    return refuse(client, 403, 'Forbidden', denialText(host, port, verdict.rule, verdict.source));
  let upstream: Socket;
  try {
    upstream = await dialTunnel(host, port, options);
  } catch (error) {
    return refuse(client, 502, 'Bad Gateway', unreachable(host, port, error));
  }
  relay(client, upstream, 'HTTP/1.1 200 Connection Established\r\n\r\n', rest);
}
