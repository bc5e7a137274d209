import type { Socket } from 'node:net';
import { describeValue, lazyBuiltin, normaliseHost, ToolgateError } from '@toolgate/core';
import { headEnd, MAX_HEAD } from './httpHead.js';
import { connectAddress } from './target.js';

const net = lazyBuiltin<typeof import('node:net')>('node:net');

/**
 * The HTTP proxy the machine itself must go through (a corporate proxy): every connection the policy allowed
 * is made through it — CONNECT for tunnels, absolute-form requests for plain HTTP — except to the hosts
 * `noProxy` lists and to loopback. The policy judges the host the sandbox asked for, never the upstream.
 */
export interface Upstream {
  host: string;
  port: number;
  /** `Proxy-Authorization` value, from the URL's user and password (Basic). */
  authorization?: string;
  /** NO_PROXY's entries: `*`, a name (its subdomains too), `.name`, an address. */
  noProxy: readonly string[];
}

function invalid(field: string, value: unknown, expected: string): ToolgateError {
  return new ToolgateError(
    'TOOLGATE_ERR_INVALID_OPTIONS',
    `startNetworkProxy: option ${field} must be ${expected}, got ${describeValue(value)}`,
  );
}

/** Parses `upstream` (`http://[user:pass@]host[:port]`, and a NO_PROXY list); throws naming the field. */
export function parseUpstream(url: unknown, noProxy: unknown, field = 'upstream'): Upstream {
  let u: URL;
  try {
    u = new URL(String(url));
  } catch {
    throw invalid(field, url, 'an http:// proxy URL');
  }
  if (typeof url !== 'string' || u.protocol !== 'http:' || u.hostname === '')
    throw invalid(field, url, 'an http:// proxy URL (https:// and socks upstreams are not supported)');
  if (noProxy !== undefined && typeof noProxy !== 'string')
    throw invalid(`${field}.noProxy`, noProxy, 'a comma-separated list of hosts');
  const out: Upstream = {
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port === '' ? 80 : Number(u.port),
    noProxy: (noProxy ?? '')
      .split(/[\s,]+/)
      .map((e) => e.trim().toLowerCase().replace(/:\d+$/, ''))
      .filter((e) => e !== ''),
  };
  if (u.username !== '')
    out.authorization = `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}`;
  return out;
}

/**
 * The upstream the environment names for the proxy's own connections (what curl would use on this
 * machine): `HTTPS_PROXY`, else `HTTP_PROXY` (either case), with `NO_PROXY`. A scheme the proxy cannot speak
 * upstream (https://, socks) is reported in `skipped`, and connections go direct.
 */
export function upstreamFromEnv(env: Readonly<Record<string, string | undefined>>): {
  upstream?: Upstream;
  skipped?: string;
} {
  const url = env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY || env.http_proxy;
  if (!url) return {};
  try {
    return { upstream: parseUpstream(url, env.NO_PROXY ?? env.no_proxy ?? '', 'HTTPS_PROXY') };
  } catch (error) {
    return { skipped: (error as Error).message };
  }
}

const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|::1)$/;

/** Whether a connection to `host` goes straight out (NO_PROXY, loopback) rather than through `upstream`. */
export function bypasses(upstream: Upstream, host: string): boolean {
  if (LOOPBACK.test(host) || host.endsWith('.localhost')) return true;
  for (const entry of upstream.noProxy) {
    if (entry === '*') return true;
    const name = normaliseHost(entry.replace(/^\*?\./, '')) ?? entry;
    if (host === name || host.endsWith(`.${name}`)) return true;
  }
  return false;
}

export interface DialOptions {
  hosts?: ReadonlyMap<string, string> | undefined;
  upstream?: Upstream | undefined;
}

/** Whether a connection to `host` is made through the upstream proxy. */
export function viaUpstream(host: string, options: DialOptions): Upstream | undefined {
  const { upstream, hosts } = options;
  if (upstream === undefined || hosts?.has(host) || bypasses(upstream, host)) return undefined;
  return upstream;
}

/** `host:port` as a request target (IPv6 in brackets). */
export function authority(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

function connected(socket: Socket): Promise<Socket> {
  return new Promise((resolve, reject) => {
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** An error from the upstream proxy's answer, reported to the client like a connection failure. */
export class UpstreamRefused extends Error {
  readonly code = 'EUPSTREAM';
}

/**
 * A TCP connection to `host:port` for a tunnel (CONNECT, SOCKS): direct, or through the upstream proxy's
 * CONNECT (its answer read up to the end of its head; anything but 2xx is an UpstreamRefused).
 */
export async function dialTunnel(host: string, port: number, options: DialOptions): Promise<Socket> {
  const upstream = viaUpstream(host, options);
  if (upstream === undefined) {
    const socket = net().connect({ host: connectAddress(host, options.hosts), port });
    socket.setNoDelay(true);
    return connected(socket);
  }
  const socket = await dialUpstream(upstream);
  const target = authority(host, port);
  socket.write(
    `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${upstream.authorization ? `Proxy-Authorization: ${upstream.authorization}\r\n` : ''}\r\n`,
  );
  return new Promise((resolve, reject) => {
    let buf: Buffer = Buffer.alloc(0);
    const fail = (error: Error) => {
      socket.off('data', onData);
      socket.destroy();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      const end = headEnd(buf);
      if (end < 0) {
        if (buf.length > MAX_HEAD) fail(new UpstreamRefused('the upstream proxy sent an unreadable answer'));
        return;
      }
      const status = /^HTTP\/1\.[01] (\d{3})(?: ([^\r\n]*))?/.exec(buf.toString('latin1', 0, end));
      if (!status || status[1]![0] !== '2')
        return fail(
          new UpstreamRefused(
            `the upstream proxy ${upstream.host}:${upstream.port} answered ${status ? `${status[1]} ${status[2] ?? ''}`.trim() : 'something else'} to CONNECT ${target}`,
          ),
        );
      socket.off('data', onData);
      socket.off('error', fail);
      socket.off('end', ended);
      socket.pause();
      if (end < buf.length) socket.unshift(buf.subarray(end));
      resolve(socket);
    };
    const ended = () => fail(new UpstreamRefused('the upstream proxy closed the connection'));
    socket.on('data', onData);
    socket.once('error', fail);
    socket.once('end', ended);
  });
}

/**
 * Joins a client to the tunnel dialled for it: `answer` tells the client the tunnel is up (CONNECT's 200,
 * SOCKS' reply 0), the bytes it sent early (`rest`) go first, then both directions are piped; an error or
 * the client's close ends the other side. A client gone while dialling closes the tunnel.
 */
export function relay(client: Socket, upstream: Socket, answer: string | Buffer, rest: Buffer): void {
  if (client.destroyed) {
    upstream.destroy();
    return;
  }
  client.setNoDelay(true);
  client.write(answer);
  if (rest.length > 0) upstream.write(rest);
  upstream.pipe(client);
  client.pipe(upstream);
  upstream.resume();
  client.resume();
  upstream.on('error', () => client.destroy());
  client.on('error', () => upstream.destroy());
  client.on('close', () => upstream.destroy());
}

/** A connection to the upstream proxy itself. */
export function dialUpstream(upstream: Upstream): Promise<Socket> {
  const socket = net().connect({ host: upstream.host, port: upstream.port });
  socket.setNoDelay(true);
  return connected(socket);
}
