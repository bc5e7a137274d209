import { execFileSync, spawn } from 'node:child_process';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { BIN, exited, FILESYSTEM_SERVER } from './support/cli.js';

let root: string;
beforeEach(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-mcp-tty-')));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

// `toolgate mcp --approvals tty` under a real pseudo-terminal: util-linux `script` gives the gateway a
// controlling terminal, while MCP itself runs over two FIFOs — the way a client and a human share one process.
it('--approvals tty asks on the controlling terminal (not on the MCP channel), obeys the answer, and exits when the client hangs up', async () => {
  const ws = join(root, 'ws');
  mkdirSync(join(ws, 'secrets'), { recursive: true });
  const policy = join(root, 'policy.yaml');
  writeFileSync(
    policy,
    'default: deny\nrules:\n  - { pattern: "<workspace>/**", access: write }\n  - { pattern: "<workspace>/secrets/**", access: prompt }\n',
  );
  const toGateway = join(root, 'in.fifo');
  const fromGateway = join(root, 'out.fifo');
  execFileSync('mkfifo', [toGateway, fromGateway]);
  const command = [
    process.execPath,
    BIN,
    'mcp',
    '--dialect',
    'toolgate',
    '--policy',
    policy,
    '--cwd',
    ws,
    '--approvals',
    'tty',
    '--',
    process.execPath,
    FILESYSTEM_SERVER,
    ws,
  ].join(' ');
  const terminal = spawn('script', ['-qfec', `${command} < ${toGateway} > ${fromGateway}`, '/dev/null'], {
    env: { ...process.env, HOME: root, CI: '' },
  });
  let screen = '';
  terminal.stdout.on('data', (d: Buffer) => {
    screen += d.toString();
  });
  const send = createWriteStream(toGateway);
  const lines = createInterface({ input: createReadStream(fromGateway) })[Symbol.asyncIterator]();
  const request = async (id: number, method: string, params: Record<string, unknown>) => {
    send.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return JSON.parse((await lines.next()).value as string) as {
      result: { isError?: boolean; content?: Array<{ text: string }> };
    };
  };

  await request(1, 'initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'tty-test', version: '1' },
  });
  send.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  const target = join(ws, 'secrets', 'k.txt');
  const pending = request(2, 'tools/call', { name: 'write_file', arguments: { path: target, content: 'k' } });
  const deadline = Date.now() + 10_000;
  while (!screen.includes('[Y/n/a/q]') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  expect(screen).toContain('[Y/n/a/q]');
  expect(screen).toContain(target);
  terminal.stdin.write('n\n');
  const refused = await pending;
  expect(refused.result.isError).toBe(true);
  expect(JSON.parse(refused.result.content![0]!.text).code).toBe('PROMPT_DENIED');
  expect(existsSync(target)).toBe(false);

  const second = request(3, 'tools/call', { name: 'write_file', arguments: { path: target, content: 'k' } });
  while (screen.split('[Y/n/a/q]').length < 3 && Date.now() < deadline + 10_000)
    await new Promise((r) => setTimeout(r, 25));
  terminal.stdin.write('y\n');
  expect((await second).result.isError).toBeFalsy();
  expect(readFileSync(target, 'utf8')).toBe('k');

  send.end();
  expect(await exited(terminal as never)).toBe(0);
});
