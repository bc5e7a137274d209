import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { lazyBuiltin, normaliseHost } from '@toolgate/core';
import type { ConnectionRecord } from './connectionRecord.js';
import { denialText, httpResponse } from './denial.js';
import { type Judge, record } from './judge.js';
import { connectAddress, parseAuthority, tunnelScheme } from './target.js';

// Loaded when a proxy starts: `toolgate run` and the hook load this package, and node:net with the stream
// modules is ≈ 3.5 ms of their start (see ../launch.ts).
const http = lazyBuiltin<typeof import('node:http')>('node:http');
const net = lazyBuiltin<typeof import('node:net')>('node:net');

/** Methods that only fetch: judged as `read`; every other method sends data out (`write`). */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Hop-by-hop headers (RFC 9110 §7.6.1) and the proxy's own: never forwarded. */
const HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'upgrade',
]);

function forwardHeaders(raw: readonly string[]): string[] {
  const drop = new Set(HOP);
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]!.toLowerCase() === 'connection')
      for (const name of raw[i + 1]!.split(',')) drop.add(name.trim().toLowerCase());
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2)
    if (!drop.has(raw[i]!.toLowerCase())) out.push(raw[i]!, raw[i + 1]!);
  return out;
}

/**
 * The Host upstream is the one judged: the URL's. A client's own Host naming another site would reach that
 * site's virtual host on a shared server or CDN (domain fronting); an HTTP/1.0 client may send none.
 */
function withHost(raw: string[], host: string): string[] {
  const out = ['Host', host];
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]!.toLowerCase() !== 'host') out.push(raw[i]!, raw[i + 1]!);
  return out;
}

export interface HttpProxyOptions {
  judge: Judge;
  hosts?: ReadonlyMap<string, string> | undefined;
  onConnection?: ((record: ConnectionRecord) => void) | undefined;
}

/**
 * The HTTP side of the proxy, fed sockets by the listener (`server.emit('connection', socket)`): plain HTTP
 * requests in absolute form (each judged on its own: a keep-alive connection may ask for other hosts) and
 * CONNECT tunnels (judged once, as `write`: what runs inside is opaque). Everything else is refused.
 */
export function createHttpProxy(options: HttpProxyOptions): Server {
  const { judge, hosts } = options;
  const server = http().createServer({ requireHostHeader: false });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    void forward(req, res, options).catch(() => res.destroy());
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    void tunnel(req, client, head, judge, hosts, options.onConnection).catch(() => client.destroy());
  });
  // WebSocket over plain HTTP and other upgrades: not relayed (an upgraded stream is not judged per request).
  server.on('upgrade', (_req: IncomingMessage, client: Socket) => {
    client.end(httpResponse(501, 'Not Implemented', 'toolgate: the sandbox proxy does not relay upgrades\n'));
  });
  server.on('clientError', (_error, client: Socket) => {
    if (client.writable) client.end(httpResponse(400, 'Bad Request', 'toolgate: malformed proxy request\n'));
    else client.destroy();
  });
  return server;
}

async function forward(req: IncomingMessage, res: ServerResponse, options: HttpProxyOptions): Promise<void> {
  let url: URL | undefined;
  try {
    url = new URL(req.url ?? '');
  } catch {
    url = undefined;
  }
  if (url === undefined || url.protocol !== 'http:') {
    // An origin-form request (`GET / HTTP/1.1` to the proxy itself) or another scheme: not a proxy request.
    res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
    res.end(
      `toolgate: the sandbox proxy takes http:// URLs in absolute form and CONNECT, got ${JSON.stringify(req.url)}\n`,
    );
    return;
  }
  const host = normaliseHost(url.hostname);
  const port = url.port === '' ? 80 : Number(url.port);
  const method = READ_METHODS.has(req.method ?? '') ? 'read' : 'write';
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
    res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
    res.end(`toolgate: ${JSON.stringify(url.hostname)} is not a host name\n`);
    return;
  }
  const verdict = await options.judge({ host, port, scheme: 'http', method }, 'http');
  if (verdict.action === 'deny') {
    res.writeHead(403, 'Forbidden', {
      'content-type': 'text/plain; charset=utf-8',
      connection: 'close',
      'x-toolgate': 'network-denied',
    });
    res.end(denialText(host, port, verdict.rule, verdict.source));
    req.resume();
    return;
  }
  const upstream = http().request({
    host: connectAddress(host, options.hosts),
    port,
    method: req.method,
    path: `${url.pathname}${url.search}`,
    headers: withHost(forwardHeaders(req.rawHeaders), url.host) as unknown as Record<string, string>,
    setHost: false,
    agent: false,
  });
  upstream.on('socket', (socket: Socket) => socket.setNoDelay(true));
  upstream.on('response', (up) => {
    res.writeHead(
      up.statusCode ?? 502,
      up.statusMessage,
      forwardHeaders(up.rawHeaders) as unknown as Record<string, string>,
    );
    up.pipe(res);
  });
  upstream.on('error', (error) => {
    if (res.headersSent) res.destroy();
    else {
      res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
      res.end(
        `toolgate: ${host}:${port} could not be reached: ${(error as NodeJS.ErrnoException).code ?? error.message}\n`,
      );
    }
  });
  res.on('close', () => upstream.destroy());
  req.pipe(upstream);
}

async function tunnel(
  req: IncomingMessage,
  client: Socket,
  head: Buffer,
  judge: Judge,
  hosts: ReadonlyMap<string, string> | undefined,
  onConnection: HttpProxyOptions['onConnection'],
): Promise<void> {
  const target = parseAuthority(req.url ?? '');
  if (target === undefined) {
    record(onConnection, {
      host: req.url ?? '',
      port: 0,
      scheme: 'tcp',
      method: 'write',
      via: 'connect',
      action: 'deny',
      rule: 'not a host:port',
      time: Date.now(),
    });
    client.end(
      httpResponse(400, 'Bad Request', `toolgate: CONNECT needs host:port, got ${JSON.stringify(req.url)}\n`),
    );
    return;
  }
  const { host, port } = target;
  client.pause();
  const verdict = await judge({ host, port, scheme: tunnelScheme(port), method: 'write' }, 'connect');
  if (verdict.action === 'deny') {
    client.end(httpResponse(403, 'Forbidden', denialText(host, port, verdict.rule, verdict.source)));
    return;
  }
  const upstream = net().connect({ host: connectAddress(host, hosts), port });
  upstream.setNoDelay(true);
  client.setNoDelay(true);
  let connected = false;
  upstream.once('connect', () => {
    connected = true;
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
    client.resume();
  });
  upstream.once('error', (error) => {
    if (connected || !client.writable) client.destroy();
    else
      client.end(
        httpResponse(
          502,
          'Bad Gateway',
          `toolgate: ${host}:${port} could not be reached: ${(error as NodeJS.ErrnoException).code ?? error.message}\n`,
        ),
      );
  });
  client.on('error', () => upstream.destroy());
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.destroy());
}
