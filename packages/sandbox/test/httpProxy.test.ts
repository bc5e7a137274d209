import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { compileNetworkPolicy } from '@toolgate/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ConnectionRecord, type NetworkProxy, startNetworkProxy } from '../src/index.js';
import { type CountingServer, countingServer } from './networkHelpers.js';

// The proxy's HTTP side (src/network/httpProxy.ts, httpHead.ts) attacked with raw bytes on its socket: each
// request is judged on its own, so what a client sends after the first request on a connection — a second,
// pipelined request, to another host or with another method — must never reach anyone; and a head or body the
// proxy could read differently from the server is refused. Real servers behind it record every request they
// got (asserted server-side); each attack has a twin that must work.

let proxy: NetworkProxy;
let allowed: CountingServer; // 127.0.0.2: allowed.test (any method), readonly.test (reads only)
let evil: CountingServer; // 127.0.0.3: evil.test, denied
let records: ConnectionRecord[] = [];
const policy = compileNetworkPolicy(
  {
    default: 'deny',
    rules: [
      { host: 'allowed.test', action: 'allow' },
      { host: 'readonly.test', action: 'allow', method: 'read' },
    ],
  },
  '/test/policy.yaml',
);

/** Sends raw bytes to the proxy and collects the answer until the proxy closes (or 3 s pass: `timedOut`). */
function exchange(bytes: string | Buffer): Promise<{ text: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    const s = connect(proxy.socketPath);
    const chunks: Buffer[] = [];
    let timedOut = false;
    s.on('data', (c: Buffer) => chunks.push(c));
    const done = () => resolve({ text: Buffer.concat(chunks).toString('latin1'), timedOut });
    s.on('close', done);
    s.on('error', () => {});
    const timer = setTimeout(() => {
      timedOut = true;
      s.destroy();
    }, 3000);
    s.on('close', () => clearTimeout(timer));
    s.write(bytes);
  });
}

const get = (host: string, extra = '') =>
  `GET http://${host}:${allowed.port}/x HTTP/1.1\r\nHost: ${host}\r\n${extra}\r\n`;

beforeAll(async () => {
  allowed = await countingServer('127.0.0.2', 'allowed-ok');
  evil = await countingServer('127.0.0.3', 'evil-ok');
  // evil.test is denied by the policy: a request for it that got as far as the judge would be a record.
  proxy = await startNetworkProxy({
    policy,
    hosts: { 'allowed.test': '127.0.0.2', 'readonly.test': '127.0.0.2', 'evil.test': '127.0.0.3' },
    onConnection: (r) => records.push(r),
  });
});
afterAll(async () => {
  await proxy?.close();
  allowed?.server.close();
  evil?.server.close();
});
beforeEach(() => {
  records = [];
  for (const s of [allowed, evil]) {
    s.connections = 0;
    s.requests.length = 0;
    s.bodies.length = 0;
  }
});

describe('one judged request per connection', () => {
  it('a request pipelined after an allowed one, to a denied host, reaches nobody; the answer closes the connection', async () => {
    const r = await exchange(get('allowed.test', 'Connection: keep-alive\r\n') + get('evil.test'));
    expect(r.timedOut).toBe(false);
    expect(r.text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(r.text).toMatch(/\r\nConnection: close\r\n/i);
    expect(r.text).not.toMatch(/keep-alive/i);
    expect(r.text.endsWith('allowed-ok')).toBe(true);
    expect(allowed.requests).toEqual(['GET /x']);
    expect(evil.connections).toBe(0);
    expect(records.map((x) => x.host)).toEqual(['allowed.test']);
  });

  it('a POST pipelined after a GET to a read-only host is not sent; the GET alone is (twin)', async () => {
    const post = `POST http://readonly.test:${allowed.port}/upload HTTP/1.1\r\nHost: readonly.test\r\nContent-Length: 6\r\n\r\nsecret`;
    const r = await exchange(get('readonly.test') + post);
    expect(r.text).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(allowed.requests).toEqual(['GET /x']);
    expect(allowed.bodies).toEqual(['']);
    // Twin: the POST on a connection of its own is judged, and refused.
    const denied = await exchange(post);
    expect(denied.text).toMatch(/^HTTP\/1\.1 403 Forbidden/);
    expect(denied.text).toContain('readonly.test');
    expect(allowed.requests).toEqual(['GET /x']);
  });

  it('a body after the last chunk of a chunked upload is dropped, not sent as a request', async () => {
    const smuggled = get('evil.test');
    const r = await exchange(
      `POST http://allowed.test:${allowed.port}/up HTTP/1.1\r\nHost: allowed.test\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n${smuggled}`,
    );
    expect(r.text).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(allowed.requests).toEqual(['POST /up']);
    expect(allowed.bodies).toEqual(['hello world']);
    expect(evil.connections).toBe(0);
  });

  it('a Content-Length body is forwarded exactly; bytes past it are dropped', async () => {
    const r = await exchange(
      `PUT http://allowed.test:${allowed.port}/f HTTP/1.1\r\nHost: allowed.test\r\nContent-Length: 4\r\n\r\nabcdGET /again HTTP/1.1\r\n\r\n`,
    );
    expect(r.text).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(allowed.requests).toEqual(['PUT /f']);
    expect(allowed.bodies).toEqual(['abcd']);
  });

  it('a GET that carries a body sends data: judged as a write (denied on a read-only host); without one it is a read (twin)', async () => {
    const withBody = await exchange(`${get('readonly.test', 'Content-Length: 6\r\n')}secret`);
    expect(withBody.text).toMatch(/^HTTP\/1\.1 403/);
    expect(records.at(-1)).toMatchObject({ host: 'readonly.test', method: 'write', action: 'deny' });
    const chunked = await exchange(
      `${get('readonly.test', 'Transfer-Encoding: chunked\r\n')}6\r\nsecret\r\n0\r\n\r\n`,
    );
    expect(chunked.text).toMatch(/^HTTP\/1\.1 403/);
    expect(allowed.connections).toBe(0);
    const twin = await exchange(get('readonly.test', 'Content-Length: 0\r\n'));
    expect(twin.text).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(records.at(-1)).toMatchObject({ host: 'readonly.test', method: 'read', action: 'allow' });
  });
});

describe('heads and bodies the proxy could read differently from a server: 400, nothing sent', () => {
  const cases: Array<[string, string]> = [
    ['Transfer-Encoding and Content-Length together', 'Transfer-Encoding: chunked\r\nContent-Length: 3\r\n'],
    ['a transfer coding other than chunked', 'Transfer-Encoding: gzip, chunked\r\n'],
    ['chunked spelled differently', 'Transfer-Encoding: xchunked\r\n'],
    ['two different Content-Length values', 'Content-Length: 3\r\nContent-Length: 4\r\n'],
    ['a Content-Length that is not a number', 'Content-Length: +3\r\n'],
    ['a folded header line (obs-fold)', 'X-A: 1\r\n  continued\r\n'],
    ['a space before the colon', 'Host : allowed.test\r\n'],
    ['a control character in a value', 'X-A: 1\u0001\r\n'],
  ];
  for (const [name, headers] of cases)
    it(name, async () => {
      const r = await exchange(
        `POST http://allowed.test:${allowed.port}/ HTTP/1.1\r\nHost: allowed.test\r\n${headers}\r\nabc`,
      );
      expect(r.text).toMatch(/^HTTP\/1\.1 400 Bad Request/);
      expect(r.text).toContain('malformed proxy request');
      expect(allowed.connections).toBe(0);
    });

  it('bare LF line ends', async () => {
    const r = await exchange(
      `GET http://allowed.test:${allowed.port}/ HTTP/1.1\nHost: allowed.test\n\r\n\r\n`,
    );
    expect(r.text).toMatch(/^HTTP\/1\.1 400/);
    expect(allowed.connections).toBe(0);
  });

  it('Transfer-Encoding in an HTTP/1.0 request', async () => {
    const r = await exchange(
      `POST http://allowed.test:${allowed.port}/ HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    );
    expect(r.text).toMatch(/^HTTP\/1\.1 400/);
    expect(allowed.connections).toBe(0);
  });

  it('a head over 64 KiB: 431', async () => {
    const r = await exchange(
      `GET http://allowed.test:${allowed.port}/ HTTP/1.1\r\nX-Big: ${'a'.repeat(70_000)}`,
    );
    expect(r.text).toMatch(/^HTTP\/1\.1 431/);
    expect(allowed.connections).toBe(0);
  });

  it('a malformed chunk ends the connection and is recorded', async () => {
    const r = await exchange(
      `POST http://allowed.test:${allowed.port}/ HTTP/1.1\r\nHost: allowed.test\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n`,
    );
    expect(r.timedOut).toBe(false);
    expect(records.at(-1)).toMatchObject({
      action: 'deny',
      rule: expect.stringMatching(/malformed request body/),
    });
  });

  it('twins: the same requests well formed reach the server', async () => {
    const same = await exchange(
      `POST http://allowed.test:${allowed.port}/ HTTP/1.1\r\nHost: allowed.test\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc`,
    );
    expect(same.text).toMatch(/^HTTP\/1\.1 200/);
    const old = await exchange(`GET http://allowed.test:${allowed.port}/old HTTP/1.0\r\n\r\n`);
    expect(old.text).toMatch(/^HTTP\/1\.1 200/);
    expect(allowed.requests).toEqual(['POST /', 'GET /old']);
    expect(allowed.bodies).toEqual(['abc', '']);
  });
});

describe('responses', () => {
  let raw: Server;
  let port: number;
  let openUpstream = 0;
  beforeAll(async () => {
    // A server that answers a 100 Continue before its final response, keeps its connection open (ignoring the
    // proxy's Connection: close) and names headers in Connection that must not reach the client.
    raw = createServer();
    raw.on('connection', (socket) => {
      openUpstream++;
      socket.on('close', () => openUpstream--);
    });
    raw.on('checkContinue', (req, res) => {
      res.writeContinue();
      let n = 0;
      req.on('data', (c: Buffer) => {
        n += c.length;
      });
      req.on('end', () => {
        res.writeHead(200, {
          Connection: 'keep-alive, X-Secret-Hop',
          'X-Secret-Hop': 'hop',
          'Keep-Alive': 'timeout=60',
        });
        res.end(`got ${n}`);
      });
    });
    raw.on('request', (_req, res) => res.end('plain'));
    await new Promise<void>((r) => raw.listen(0, '127.0.0.2', r));
    port = (raw.address() as AddressInfo).port;
  });
  afterAll(() => raw.close());

  it("passes 100 Continue on, and the final head with Connection: close instead of the server's connection headers", async () => {
    const text = await new Promise<string>((resolve) => {
      const s = connect(proxy.socketPath);
      let got = '';
      s.on('data', (c: Buffer) => {
        got += c.toString('latin1');
        if (got.startsWith('HTTP/1.1 100') && !got.includes('got ')) s.write('12345');
      });
      s.on('close', () => resolve(got));
      setTimeout(() => s.destroy(), 3000);
      // The server keeps its connection (it ignores the proxy's Connection: close); the client, told the
      // connection closes, closes it once the response is whole — and the proxy's upstream goes with it.
      s.on('data', () => {
        if (got.endsWith('0\r\n\r\n')) s.destroy();
      });
      s.write(
        `POST http://allowed.test:${port}/ HTTP/1.1\r\nHost: allowed.test\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n`,
      );
    });
    expect(text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
    expect(text).toMatch(/\r\nConnection: close\r\n/);
    expect(text).not.toMatch(/X-Secret-Hop|Keep-Alive/i);
    expect(text).toContain('got 5');
    await expect.poll(() => openUpstream, { timeout: 2000 }).toBe(0);
  });
});
