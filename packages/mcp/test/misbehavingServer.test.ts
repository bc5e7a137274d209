import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { createGuard } from '@toolgate/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type GatewayOptions, serveStdio } from '../src/index.js';
import { type Connected, connectThroughGateway, textOf } from './support/connect.js';

// issue 14: a server that answers garbage or nothing left the client waiting forever; a 12 MiB frame ended
// the gateway. Every case runs a real child process (test/fixtures/misbehavingServer.mjs).
const server = fileURLToPath(new URL('./fixtures/misbehavingServer.mjs', import.meta.url));
const ctx = { sessionId: 's', agentId: 'a', cwd: '/tmp', workspace: '/tmp', home: '/tmp', env: {} };
const upstream = { command: process.execPath, args: [server], stderr: 'ignore' as const };

let c: Connected | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

async function connect(extra: Partial<GatewayOptions> = {}): Promise<Connected> {
  c = await connectThroughGateway({ guard: createGuard(), ctx, upstream, ...extra });
  return c;
}

async function rejection(p: Promise<unknown>): Promise<McpError> {
  try {
    await p;
  } catch (error) {
    expect(error).toBeInstanceOf(McpError);
    return error as McpError;
  }
  throw new Error('expected the call to fail');
}

const call = (conn: Connected, name: string, args: Record<string, unknown> = {}) =>
  conn.client.callTool({ name, arguments: args });

describe('a misbehaving upstream server never leaves the client waiting', () => {
  it('no answer: a JSON-RPC timeout error, the server is told to cancel, the gateway goes on', async () => {
    const conn = await connect({ requestTimeoutMs: 300 });
    const started = Date.now();
    const error = await rejection(call(conn, 'silent'));
    expect(error.code).toBe(-32001);
    expect(error.message).toMatch(/did not answer tools\/call within 300 ms/);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(textOf(await call(conn, 'echo'))).toMatch(/^pid \d+$/);
  });

  it('a result that is not an object for its id: an error reply at once, not a hang', async () => {
    const conn = await connect();
    const error = await rejection(call(conn, 'badResult'));
    expect(error.code).toBe(-32002);
    expect(error.message).toMatch(/malformed message: a line that is not a JSON-RPC message/);
    expect(textOf(await call(conn, 'echo'))).toMatch(/^pid/);
  });

  it('a line that is not JSON: reported, and the request it left open times out with an error', async () => {
    const conn = await connect({ requestTimeoutMs: 300 });
    const error = await rejection(call(conn, 'garbage'));
    expect(error.code).toBe(-32001);
    expect(conn.errors.map((e) => e.message).join('\n')).toMatch(
      /a line that is not JSON: "this is not json/,
    );
    expect(textOf(await call(conn, 'echo'))).toMatch(/^pid/);
  });

  it('a 12 MiB answer passes under the default frame limit', async () => {
    const conn = await connect();
    const result = await call(conn, 'huge', { mib: 12 });
    expect(textOf(result)).toHaveLength(12 * 1024 * 1024);
    expect(conn.gateway.closedBy).toBeUndefined();
  });

  it('an answer over the frame limit: an error naming its size, and the gateway goes on', async () => {
    const conn = await connect({ maxFrameBytes: 1024 * 1024 });
    const error = await rejection(call(conn, 'huge', { mib: 2 }));
    expect(error.code).toBe(-32002);
    expect(error.message).toMatch(/message of \d+ bytes exceeds the frame limit of 1048576 bytes/);
    expect(textOf(await call(conn, 'echo'))).toMatch(/^pid/);
  });

  it('a crash with a request in flight: the request is answered; without restart the gateway closes', async () => {
    const conn = await connect();
    const error = await rejection(call(conn, 'crash'));
    expect(error.code).toBe(-32000);
    await conn.gateway.closed;
    expect(conn.gateway.closedBy).toBe('upstream');
  });

  it('with restart: the crashed server is replaced and initialised again; later calls work', async () => {
    const conn = await connect({ restart: 2 });
    const before = textOf(await call(conn, 'echo'));
    expect((await rejection(call(conn, 'crash'))).code).toBe(-32000);
    const after = textOf(await call(conn, 'echo'));
    expect(after).toMatch(/^pid \d+$/);
    expect(after).not.toBe(before);
    expect(conn.gateway.closedBy).toBeUndefined();
    expect(conn.errors.map((e) => e.message).join('\n')).toMatch(/was restarted/);
  });
});

describe('the client side of a stdio gateway', () => {
  it('a client frame over the limit or not JSON gets a JSON-RPC error; the session goes on', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const lines: Array<Record<string, unknown>> = [];
    let buffered = '';
    stdout.on('data', (d: Buffer) => {
      buffered += d.toString();
      const parts = buffered.split('\n');
      buffered = parts.pop() ?? '';
      for (const p of parts) lines.push(JSON.parse(p) as Record<string, unknown>);
    });
    const serving = serveStdio(
      { guard: createGuard(), ctx, upstream, maxFrameBytes: 1024 * 1024, onError: () => {} },
      { stdin, stdout },
    );
    const send = (m: unknown) => stdin.write(`${JSON.stringify(m)}\n`);
    const answer = async (id: unknown) => {
      for (let i = 0; i < 500; i++) {
        const hit = lines.find((l) => l.id === id);
        if (hit) return hit;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error(`no answer for ${String(id)}`);
    };
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    expect(((await answer(1)).result as { serverInfo: { name: string } }).serverInfo.name).toBe(
      'misbehaving',
    );
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'echo', arguments: { pad: 'x'.repeat(12 * 1024 * 1024) } },
    });
    expect(((await answer(2)).error as { code: number; message: string }).message).toMatch(
      /exceeds the frame limit of 1048576 bytes/,
    );
    stdin.write('not json\n');
    expect(((await answer(null)).error as { code: number }).code).toBe(-32700);
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: {} } });
    expect(JSON.stringify((await answer(3)).result)).toMatch(/pid \d+/);
    stdin.end();
    const gateway = await serving;
    expect(gateway.closedBy).toBe('client');
  });
});
