import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited, runCli, spawnCli } from './support/cli.js';

// Issue 25, item 6: the gateway's requestTimeoutMs, maxFrameBytes and restart from `toolgate mcp`.
let root: string;
let server: string;
let policy: string;

// A line-delimited MCP server: `echo` answers, `hang` never does, `exit` ends the process.
const SERVER = `
const rl = require('node:readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  if (m.method === 'initialize')
    return send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'stub', version: '1' } } });
  if (m.method === 'tools/list')
    return send({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'echo', description: 'Echo.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }] } });
  if (m.method === 'tools/call') {
    const text = m.params.arguments.text;
    if (text === 'hang') return;
    if (text === 'exit') process.exit(1);
    return send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'pid ' + process.pid + ': ' + text.length }] } });
  }
  send({ jsonrpc: '2.0', id: m.id, result: {} });
});
`;

beforeAll(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-mcp-flags-')));
  server = join(root, 'server.cjs');
  writeFileSync(server, SERVER);
  policy = join(root, 'policy.yaml');
  writeFileSync(policy, 'rules:\n  - { pattern: "<workspace>/**", access: write }\n');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function gateway(flags: string[]) {
  const child = spawnCli(
    ['mcp', '--policy', policy, '--cwd', root, ...flags, '--', process.execPath, server],
    {
      PATH: process.env.PATH,
      HOME: root,
      TOOLGATE_CACHE: 'off',
    },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const waiting = new Map<number, (m: Record<string, unknown>) => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const m = JSON.parse(line) as { id?: number };
    if (typeof m.id === 'number') waiting.get(m.id)?.(m);
  });
  let next = 1;
  const raw = (text: string, id: number) =>
    new Promise<Record<string, unknown>>((resolve) => {
      waiting.set(id, resolve);
      child.stdin.write(`${text}\n`);
    });
  const request = (method: string, params: unknown) => {
    const id = next++;
    return raw(JSON.stringify({ jsonrpc: '2.0', id, method, params }), id);
  };
  await request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'test', version: '1' },
  });
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  const call = (text: string) => request('tools/call', { name: 'echo', arguments: { text } });
  const close = async () => {
    child.stdin.end();
    return { code: await exited(child), stderr };
  };
  return { call, raw, close, nextId: () => next++, exited: () => exited(child) };
}

describe('toolgate mcp --request-timeout --max-frame-bytes --restart', () => {
  it('refuses a bad value with exit 2, naming the flag and the value', () => {
    for (const [flag, value] of [
      ['--request-timeout', 'soon'],
      ['--request-timeout', '0'],
      ['--request-timeout', '99999999999'],
      ['--max-frame-bytes', '12.5'],
      ['--max-frame-bytes', '100'],
      ['--restart', '-1'],
      ['--restart', 'many'],
    ] as const) {
      const r = runCli(['mcp', '--policy', policy, flag, value, '--', 'true'], { cwd: root, home: root });
      expect(r.code, `${flag} ${value}`).toBe(2);
      expect(r.stderr).toContain(`${flag} must be a whole number`);
      expect(r.stderr).toContain(JSON.stringify(value));
    }
  });

  it('--request-timeout: a request the server never answers gets an error after that long', async () => {
    const g = await gateway(['--request-timeout', '400']);
    const started = Date.now();
    const answer = (await g.call('hang')) as { error?: { message: string } };
    const took = Date.now() - started;
    expect(answer.error?.message).toMatch(/did not answer tools\/call within 400 ms/);
    expect(took).toBeGreaterThanOrEqual(350);
    expect(took).toBeLessThan(10_000);
    expect(((await g.call('still here')) as { result?: unknown }).result).toBeDefined();
    await g.close();
  }, 30_000);

  it('--max-frame-bytes: a longer message is answered with an error naming its size; shorter ones pass', async () => {
    const g = await gateway(['--max-frame-bytes', '2048']);
    const ok = (await g.call('x'.repeat(1000))) as { result?: { content: Array<{ text: string }> } };
    expect(ok.result?.content[0]?.text).toMatch(/: 1000$/);
    const id = g.nextId();
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'x'.repeat(5000) } },
    });
    const refused = (await g.raw(big, id)) as { error?: { message: string } };
    expect(refused.error?.message).toMatch(/\d+/);
    expect(refused.error?.message).toMatch(/2048|bytes|too large|exceeds/i);
    await g.close();
  }, 30_000);

  it('--restart 1: a server that exits is started again once, then the gateway closes with it', async () => {
    const g = await gateway(['--restart', '1']);
    const first = (await g.call('a')) as { result: { content: Array<{ text: string }> } };
    const pid1 = first.result.content[0]?.text.split(':')[0];
    const died = (await g.call('exit')) as { error?: unknown };
    expect(died.error).toBeDefined();
    let again: { result?: { content: Array<{ text: string }> }; error?: unknown } = {};
    for (let i = 0; i < 50 && !again.result; i++) {
      again = (await g.call('b')) as typeof again;
      if (!again.result) await new Promise((r) => setTimeout(r, 100));
    }
    expect(again.result?.content[0]?.text.split(':')[0]).not.toBe(pid1);
    void g.call('exit'); // the second exit: no restart left
    expect(await g.exited()).toBe(1);
  }, 30_000);
});
