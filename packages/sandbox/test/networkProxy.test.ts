import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { compileNetworkPolicy } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConnectionRecord,
  type NetworkProxy,
  newProxySocketPath,
  startNetworkProxy,
} from '../src/index.js';
import { type CountingServer, countingServer } from './networkHelpers.js';

// The proxy on its own (no sandbox): what it answers to requests that are not what a client should send, and
// where it listens. Real sockets; the server behind it counts what reached it.

let root: string;
let proxy: NetworkProxy;
let server: CountingServer;
const records: ConnectionRecord[] = [];
const policy = compileNetworkPolicy(
  { default: 'deny', rules: [{ host: 'allowed.test', action: 'allow' }] },
  '/test/policy.yaml',
);

/** Sends raw bytes to the proxy and collects what it answers until it closes (or 3 s pass). */
function exchange(bytes: Buffer | string): Promise<Buffer> {
  return new Promise((resolve) => {
    const s = connect(proxy.socketPath);
    const chunks: Buffer[] = [];
    s.on('data', (c: Buffer) => chunks.push(c));
    const done = () => resolve(Buffer.concat(chunks));
    s.on('close', done);
    s.on('error', done);
    setTimeout(() => s.destroy(), 3000);
    s.write(bytes);
  });
}

beforeAll(async () => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-proxy-')));
  server = await countingServer('127.0.0.2', 'ok');
  proxy = await startNetworkProxy({
    policy,
    hosts: { 'allowed.test': '127.0.0.2' },
    onConnection: (r) => records.push(r),
  });
});
afterAll(async () => {
  await proxy?.close();
  server?.server.close();
  rmSync(root, { recursive: true, force: true });
});

describe('startNetworkProxy', () => {
  it('listens on a unix socket in a private 0700 directory, removed on close', async () => {
    const p = await startNetworkProxy({ policy });
    const dir = dirname(p.socketPath);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(p.socketPath).isSocket()).toBe(true);
    await p.close();
    expect(() => statSync(dir)).toThrow(/ENOENT/);
  });

  it('refuses a socket path whose directory exists already (someone else may have made it)', async () => {
    const dir = join(root, 'taken');
    mkdirSync(dir);
    await expect(startNetworkProxy({ policy, socketPath: join(dir, 'proxy.sock') })).rejects.toThrow(
      /EEXIST/,
    );
    const fresh = newProxySocketPath();
    const p = await startNetworkProxy({ policy, socketPath: fresh });
    expect(p.socketPath).toBe(fresh);
    await p.close();
  });

  it('rejects bad options with the field named', async () => {
    await expect(startNetworkProxy({ policy: {} as never })).rejects.toThrow(/option policy/);
    await expect(startNetworkProxy({ policy, socketPath: 'rel/p.sock' })).rejects.toThrow(
      /option socketPath/,
    );
    await expect(startNetworkProxy({ policy, hosts: { 'a b': '1.2.3.4' } })).rejects.toThrow(/option hosts/);
    await expect(startNetworkProxy({ policy, promptTimeoutMs: 0 })).rejects.toThrow(/promptTimeoutMs/);
  });
});

describe('what the proxy refuses', () => {
  it('an origin-form request (not a proxy request) and an https:// absolute URI: 400', async () => {
    expect((await exchange('GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n')).toString()).toMatch(
      /^HTTP\/1\.1 400/,
    );
    expect(
      (await exchange('GET https://allowed.test/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n')).toString(),
    ).toMatch(/^HTTP\/1\.1 400/);
    expect(server.connections).toBe(0);
  });

  it('CONNECT without a port, or to no host: 400, recorded as a denial', async () => {
    records.length = 0;
    expect((await exchange('CONNECT allowed.test HTTP/1.1\r\n\r\n')).toString()).toMatch(/^HTTP\/1\.1 400/);
    expect(records).toEqual([
      expect.objectContaining({ action: 'deny', rule: 'not a host:port', via: 'connect' }),
    ]);
    expect(server.connections).toBe(0);
  });

  it('CONNECT to a userinfo-trick host is judged by the host it names (evil), not the name before @', async () => {
    const answer = await exchange('CONNECT allowed.test@evil.test:443 HTTP/1.1\r\n\r\n');
    expect(answer.toString()).toMatch(/^HTTP\/1\.1 (400|403)/);
    expect(server.connections).toBe(0);
  });

  it('SOCKS5: a BIND request gets "command not supported"; no acceptable auth method gets 0xFF', async () => {
    const bind = await exchange(
      Buffer.from([5, 1, 0, 5, 2, 0, 3, 12, ...Buffer.from('allowed.test'), 0, 80]),
    );
    expect([...bind.subarray(0, 4)]).toEqual([5, 0, 5, 7]);
    const noAuth = await exchange(Buffer.from([5, 1, 2]));
    expect([...noAuth]).toEqual([5, 0xff]);
    expect(server.connections).toBe(0);
  });

  it('SOCKS4 is refused (it cannot carry a name for the proxy to judge in every client)', async () => {
    const answer = await exchange(Buffer.from([4, 1, 0, 80, 127, 0, 0, 2, 0]));
    expect(answer[1]).toBe(0x5b);
    expect(server.connections).toBe(0);
  });

  it('SOCKS5 to an allowed name connects (twin)', async () => {
    const before = server.connections;
    const reply = await new Promise<Buffer>((resolve) => {
      const s = connect(proxy.socketPath);
      const chunks: Buffer[] = [];
      s.on('data', (c: Buffer) => {
        chunks.push(c);
        const all = Buffer.concat(chunks);
        if (all.length >= 12) {
          s.destroy();
          resolve(all);
        }
      });
      s.write(Buffer.from([5, 1, 0]));
      s.write(
        Buffer.from([5, 1, 0, 3, 12, ...Buffer.from('allowed.test'), server.port >> 8, server.port & 255]),
      );
    });
    expect([...reply.subarray(0, 4)]).toEqual([5, 0, 5, 0]);
    await new Promise((r) => setTimeout(r, 100));
    expect(server.connections).toBe(before + 1);
  });
});
