import { createServer as createHttpServer, request, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { compileNetworkPolicy } from '@toolgate/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type NetworkProxy, startNetworkProxy, upstreamFromEnv } from '../src/index.js';
import { type CountingServer, countingServer } from './networkHelpers.js';

// A machine that reaches the network only through its own HTTP proxy (a corporate proxy): the sandbox's
// proxy judges what the sandbox asks for, then makes each allowed connection through that upstream —
// CONNECT for tunnels and SOCKS, absolute-form requests for plain HTTP, with the upstream's credentials.
// A real upstream proxy on loopback records what it was asked; it resolves the test names itself.

let target: CountingServer; // 127.0.0.2, reached as allowed.test through the upstream
let upstreamServer: Server;
let upstreamPort: number;
const asked: Array<{ method: string; url: string; auth: string | undefined }> = [];
let refuseConnect = false;
let proxy: NetworkProxy;

const policy = compileNetworkPolicy(
  {
    default: 'deny',
    rules: [
      { host: 'allowed.test', action: 'allow' },
      { host: 'nearby.test', action: 'allow' },
    ],
  },
  '/test/policy.yaml',
);
const NAMES: Record<string, string> = { 'allowed.test': '127.0.0.2', 'nearby.test': '127.0.0.2' };

function exchange(bytes: string | Buffer): Promise<string> {
  return new Promise((resolve) => {
    const s = connect(proxy.socketPath);
    let got = '';
    s.on('data', (c: Buffer) => {
      got += c.toString('latin1');
    });
    s.on('close', () => resolve(got));
    s.on('error', () => {});
    setTimeout(() => s.destroy(), 3000);
    s.write(bytes);
  });
}

/** A CONNECT through the sandbox proxy, then one HTTP request inside the tunnel. */
function tunnelGet(host: string): Promise<string> {
  return exchange(
    `CONNECT ${host}:${target.port} HTTP/1.1\r\nHost: ${host}:${target.port}\r\n\r\nGET /t HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
  );
}

beforeAll(async () => {
  target = await countingServer('127.0.0.2', 'target-ok');
  // The upstream: CONNECT tunnels and absolute-form forwarding, Basic credentials required.
  upstreamServer = createHttpServer((req, res) => {
    asked.push({ method: req.method!, url: req.url!, auth: req.headers['proxy-authorization'] });
    const u = new URL(req.url!);
    const up = request(
      {
        host: NAMES[u.hostname] ?? u.hostname,
        port: u.port,
        path: u.pathname,
        method: req.method,
        headers: req.headers,
      },
      (r) => {
        res.writeHead(r.statusCode!, r.headers);
        r.pipe(res);
      },
    );
    req.pipe(up);
  });
  upstreamServer.on('connect', (req, client: Socket, head: Buffer) => {
    asked.push({ method: 'CONNECT', url: req.url!, auth: req.headers['proxy-authorization'] });
    if (refuseConnect) return void client.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
    const [name, port] = req.url!.split(':');
    const s = connect(Number(port), NAMES[name!] ?? name!, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) s.write(head);
      s.pipe(client);
      client.pipe(s);
    });
    s.on('error', () => client.destroy());
  });
  await new Promise<void>((r) => upstreamServer.listen(0, '127.0.0.5', r));
  upstreamPort = (upstreamServer.address() as AddressInfo).port;
  proxy = await startNetworkProxy({
    policy,
    upstream: { url: `http://ann:s%3Acret@127.0.0.5:${upstreamPort}`, noProxy: 'example.org, .nearby.test' },
  });
});
afterAll(async () => {
  await proxy?.close();
  upstreamServer?.close();
  target?.server.close();
});
beforeEach(() => {
  asked.length = 0;
  refuseConnect = false;
  target.connections = 0;
  target.requests.length = 0;
});

const AUTH = `Basic ${Buffer.from('ann:s:cret').toString('base64')}`;

describe('through the machine’s own proxy', () => {
  it('a CONNECT tunnel to an allowed host goes through the upstream, with its credentials', async () => {
    const r = await tunnelGet('allowed.test');
    expect(r).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200 OK/);
    expect(r.endsWith('target-ok')).toBe(true);
    expect(asked).toEqual([{ method: 'CONNECT', url: `allowed.test:${target.port}`, auth: AUTH }]);
    expect(target.requests).toEqual(['GET /t']);
  });

  it('a plain HTTP request goes to the upstream in absolute form, with the judged Host and credentials', async () => {
    const r = await exchange(
      `GET http://allowed.test:${target.port}/p?q HTTP/1.1\r\nHost: forged.example\r\nProxy-Authorization: Basic c2FuZGJveA==\r\n\r\n`,
    );
    expect(r).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(asked).toEqual([{ method: 'GET', url: `http://allowed.test:${target.port}/p?q`, auth: AUTH }]);
    expect(target.hosts).toContain(`allowed.test:${target.port}`);
  });

  it('SOCKS5 goes through the upstream too', async () => {
    const name = Buffer.from('allowed.test');
    const port = Buffer.alloc(2);
    port.writeUInt16BE(target.port);
    const r = await exchange(
      Buffer.concat([
        Buffer.from([5, 1, 0, 5, 1, 0, 3, name.length]),
        name,
        port,
        Buffer.from('GET /s HTTP/1.1\r\nHost: allowed.test\r\nConnection: close\r\n\r\n'),
      ]),
    );
    expect(r).toContain('target-ok');
    expect(asked.map((a) => a.method)).toEqual(['CONNECT']);
  });

  it('a denied host is refused before anything is dialled: the upstream is never asked', async () => {
    const r = await tunnelGet('evil.test');
    expect(r).toMatch(/^HTTP\/1\.1 403/);
    const plain = await exchange(`GET http://evil.test:${target.port}/ HTTP/1.1\r\n\r\n`);
    expect(plain).toMatch(/^HTTP\/1\.1 403/);
    expect(asked).toEqual([]);
  });

  it('a NO_PROXY host goes straight out (twin)', async () => {
    // nearby.test is in NO_PROXY: dialled directly — and it does not resolve here, so it fails without
    // the upstream ever being asked.
    const r = await tunnelGet('nearby.test');
    expect(r).toMatch(/^HTTP\/1\.1 502/);
    expect(asked).toEqual([]);
  });

  it('an upstream that refuses the tunnel: 502 naming its answer, nothing reached', async () => {
    refuseConnect = true;
    const r = await tunnelGet('allowed.test');
    expect(r).toMatch(/^HTTP\/1\.1 502/);
    expect(r).toContain('407');
    expect(target.connections).toBe(0);
  });

  it('rejects an upstream it cannot speak, naming the option', async () => {
    await expect(startNetworkProxy({ policy, upstream: 'socks5://127.0.0.5:1080' })).rejects.toThrow(
      /upstream/,
    );
    await expect(startNetworkProxy({ policy, upstream: 42 as never })).rejects.toThrow(/upstream/);
  });
});

describe('upstreamFromEnv', () => {
  it('HTTPS_PROXY first, then HTTP_PROXY, either case; NO_PROXY; other schemes reported and skipped', () => {
    expect(upstreamFromEnv({})).toEqual({});
    expect(
      upstreamFromEnv({ https_proxy: 'http://p.corp:3128', NO_PROXY: 'a.test,.b.test:8080' }).upstream,
    ).toEqual({
      host: 'p.corp',
      port: 3128,
      noProxy: ['a.test', '.b.test'],
    });
    expect(upstreamFromEnv({ HTTP_PROXY: 'http://u:p@p.corp' }).upstream).toMatchObject({
      port: 80,
      authorization: `Basic ${Buffer.from('u:p').toString('base64')}`,
    });
    expect(upstreamFromEnv({ HTTPS_PROXY: 'socks5://p.corp:1080' }).skipped).toMatch(/HTTPS_PROXY/);
  });
});
