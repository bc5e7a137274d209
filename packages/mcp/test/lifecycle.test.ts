import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createGuard, type GuardPlugin, ToolgateError } from '@toolgate/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGateway, serveStdio } from '../src/index.js';
import { type Connected, connectThroughGateway, textOf } from './support/connect.js';
import { fsPolicy } from './support/fsPolicy.js';
import { type TempWorkspace, tempWorkspace } from './support/workspace.js';

let t: TempWorkspace;
let c: Connected | undefined;
beforeEach(() => {
  t = tempWorkspace();
});
afterEach(async () => {
  await c?.close();
  c = undefined;
  t.cleanup();
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(condition: () => boolean, ms = 5_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return condition();
}

function childUpstream() {
  return new StdioClientTransport({ command: process.execPath, args: t.serverArgs, stderr: 'ignore' });
}

describe('gateway lifecycle', () => {
  it('the child crashing mid-session: pending and later requests fail with a clear error, no hang, gateway closes', async () => {
    const upstream = childUpstream();
    c = await connectThroughGateway({
      guard: createGuard({ plugins: [fsPolicy({ write: [t.ws] })] }),
      ctx: t.ctx,
      upstream,
    });
    const pid = upstream.pid!;
    expect(alive(pid)).toBe(true);
    process.kill(pid, 'SIGKILL');
    await c.gateway.closed;
    expect(c.gateway.closedBy).toBe('upstream');
    expect(c.errors.map((e) => e.message).join('\n')).toMatch(/upstream MCP server closed the connection/);
    await expect(c.client.callTool({ name: 'list_allowed_directories', arguments: {} })).rejects.toThrow();
  });

  it('answers a request in flight with an error when the child dies before replying', async () => {
    const server = fileURLToPath(new URL('./fixtures/crashingServer.mjs', import.meta.url));
    c = await connectThroughGateway({
      guard: createGuard({ plugins: [fsPolicy({ write: [t.ws] })] }),
      ctx: t.ctx,
      upstream: { command: process.execPath, args: [server] },
    });
    await expect(c.client.callTool({ name: 'crash', arguments: {} })).rejects.toThrow(
      /upstream MCP server closed the connection/,
    );
    await c.gateway.closed;
  });

  it('relays prompts untouched and sends nothing of its own to a server without tools', async () => {
    const server = fileURLToPath(new URL('./fixtures/promptsOnlyServer.mjs', import.meta.url));
    c = await connectThroughGateway({
      guard: createGuard({ plugins: [fsPolicy({ write: [t.ws] })] }),
      ctx: t.ctx,
      upstream: { command: process.execPath, args: [server] },
    });
    expect((await c.client.listPrompts()).prompts.map((p) => p.name)).toEqual(['greet']);
    const prompt = await c.client.getPrompt({ name: 'greet' });
    expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'hello from greet' });
    // No priming tools/list was sent (it would have been rejected and reported).
    expect(c.errors).toEqual([]);
  });

  it('relays progress notifications and cancellation of relayed calls both ways', async () => {
    const server = fileURLToPath(new URL('./fixtures/progressServer.mjs', import.meta.url));
    c = await connectThroughGateway({
      guard: createGuard({ plugins: [fsPolicy({ write: [t.ws] })] }),
      ctx: t.ctx,
      upstream: { command: process.execPath, args: [server] },
    });
    const progress: number[] = [];
    const counted = await c.client.callTool({ name: 'count', arguments: {} }, undefined, {
      onprogress: (p) => void progress.push(p.progress),
    });
    expect(textOf(counted)).toBe('counted');
    expect(progress).toEqual([1, 2, 3]);
    const marker = join(t.ws, 'cancelled.txt');
    const controller = new AbortController();
    const waiting = c.client.callTool({ name: 'wait', arguments: { marker } }, undefined, {
      signal: controller.signal,
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    controller.abort('enough');
    await expect(waiting).rejects.toThrow();
    // The server saw notifications/cancelled for the relayed request.
    expect(await waitFor(() => existsSync(marker))).toBe(true);
  });

  it('the client disconnecting terminates the child process', async () => {
    const upstream = childUpstream();
    c = await connectThroughGateway({
      guard: createGuard({ plugins: [fsPolicy({ write: [t.ws] })] }),
      ctx: t.ctx,
      upstream,
    });
    const pid = upstream.pid!;
    await c.client.close();
    await c.gateway.closed;
    expect(await waitFor(() => !alive(pid))).toBe(true);
  });

  it('serveStdio: the client closing stdin ends the session and terminates the child', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const upstream = childUpstream();
    const served = serveStdio(
      {
        guard: createGuard({ plugins: [fsPolicy({ write: [t.ws] })] }),
        ctx: t.ctx,
        upstream,
        onError: () => {},
      },
      { stdin, stdout },
    );
    await waitFor(() => upstream.pid !== null);
    const pid = upstream.pid!;
    stdin.end();
    const gateway = await served;
    expect(gateway.closedBy).toBe('client');
    expect(await waitFor(() => !alive(pid))).toBe(true);
  });

  it('a malformed line from the client is reported and skipped; the session carries on', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const errors: Error[] = [];
    const gateway = createGateway({
      guard: createGuard({ plugins: [fsPolicy({ write: [t.ws] })] }),
      ctx: t.ctx,
      upstream: { command: process.execPath, args: t.serverArgs, stderr: 'ignore' },
      onError: (e) => errors.push(e),
    });
    await gateway.connect(new StdioServerTransport(stdin, stdout));
    const lines: string[] = [];
    let buffered = '';
    stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const parts = buffered.split('\n');
      buffered = parts.pop() ?? '';
      lines.push(...parts);
    });
    stdin.write('this is not json\n');
    stdin.write('{"jsonrpc":"2.0","method":42}\n');
    stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } })}\n`,
    );
    expect(await waitFor(() => lines.some((l) => l.includes('"id":1')))).toBe(true);
    expect(JSON.parse(lines.find((l) => l.includes('"id":1'))!).result.serverInfo).toBeDefined();
    expect(errors.length).toBeGreaterThanOrEqual(2);
    await gateway.close();
  });

  it('a command that cannot be started rejects connect with TOOLGATE_ERR_IO', async () => {
    const gateway = createGateway({
      guard: createGuard(),
      ctx: t.ctx,
      upstream: { command: '/nonexistent/mcp-server' },
      onError: () => {},
    });
    await expect(
      gateway.connect(new StdioServerTransport(new PassThrough(), new PassThrough())),
    ).rejects.toMatchObject({ code: 'TOOLGATE_ERR_IO' });
    await gateway.closed;
  });
});

describe('sessions', () => {
  it('a connection whose context came from ctxFor ends its guard session when it closes (grants do not outlive it)', async () => {
    const t2 = tempWorkspace();
    try {
      const stores: Map<string, unknown>[] = [];
      const spy: GuardPlugin = {
        name: 'session-spy',
        apply: (hooks) => hooks.beforeToolCall.tap('x', (_c, state) => void stores.push(state.session)),
      };
      const guard = createGuard({ plugins: [fsPolicy({ write: [t2.ws] }), spy] });
      for (let i = 0; i < 2; i++) {
        const conn = await connectThroughGateway({
          guard,
          ctxFor: () => ({ ...t2.ctx, sessionId: 'same-session' }),
          upstream: { command: process.execPath, args: t2.serverArgs, stderr: 'ignore' },
        });
        await conn.client.callTool({ name: 'list_allowed_directories', arguments: {} });
        await conn.close();
      }
      expect(stores).toHaveLength(2);
      expect(stores[1]).not.toBe(stores[0]);
    } finally {
      t2.cleanup();
    }
  });
});

describe('createGateway options', () => {
  const guard = createGuard();
  it.each([
    ['no guard', { ctx: undefined, upstream: { command: 'x' } }, /option guard/],
    ['neither ctx nor ctxFor', { guard, upstream: { command: 'x' } }, /exactly one of ctx and ctxFor/],
    ['an empty command', { guard, ctxFor: () => ({}), upstream: { command: '' } }, /upstream.command/],
    [
      'a non-http url',
      { guard, ctxFor: () => ({}), upstream: { url: 'file:///etc/passwd' } },
      /upstream.url/,
    ],
    ['an unknown option', { guard, ctxFor: () => ({}), upstream: { command: 'x' }, polcy: 1 }, /polcy/],
  ])('rejects %s at construction', (_name, options, message) => {
    expect(() => createGateway(options as never)).toThrow(ToolgateError);
    expect(() => createGateway(options as never)).toThrow(message);
  });

  it('rejects a relative cwd in ctx at construction', () => {
    expect(() =>
      createGateway({ guard, ctx: { ...t.ctx, cwd: 'relative' }, upstream: { command: 'x' } }),
    ).toThrow(/cwd/);
  });
});
