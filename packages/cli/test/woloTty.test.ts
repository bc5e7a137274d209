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
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { BIN, exited, FILESYSTEM_SERVER } from './support/cli.js';

// Seed 002's confirmation, end to end: `toolgate mcp --dialect wolo --approvals tty` under a real
// pseudo-terminal (util-linux `script`, as mcpTty.test.ts), MCP over two FIFOs.
let root: string;
let area: string;
beforeEach(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-wolo-tty-')));
  // Outside /tmp: "Allowed without confirmation: Only /tmp".
  area = realpathSync.native(mkdtempSync('/var/tmp/toolgate-wolo-tty-'));
  mkdirSync(join(area, 'project'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(area, { recursive: true, force: true });
});

async function gateway(session: string) {
  const toGateway = join(root, `in-${session}-${Date.now()}.fifo`);
  const fromGateway = join(root, `out-${session}-${Date.now()}.fifo`);
  execFileSync('mkfifo', [toGateway, fromGateway]);
  const command = [
    process.execPath,
    BIN,
    'mcp',
    '--dialect',
    'wolo',
    '--cwd',
    root,
    '--approvals',
    'tty',
    '-r',
    session,
    '--',
    process.execPath,
    FILESYSTEM_SERVER,
    area,
  ].join(' ');
  const terminal = spawn('script', ['-qfec', `${command} < ${toGateway} > ${fromGateway}`, '/dev/null'], {
    env: { ...process.env, HOME: root, CI: '' },
  });
  const out = { screen: '' };
  terminal.stdout.on('data', (d: Buffer) => {
    out.screen += d.toString();
  });
  const send = createWriteStream(toGateway);
  const lines = createInterface({ input: createReadStream(fromGateway) })[Symbol.asyncIterator]();
  let id = 0;
  const request = async (method: string, params: Record<string, unknown>) => {
    send.write(`${JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params })}\n`);
    return JSON.parse((await lines.next()).value as string) as {
      result: { isError?: boolean; content?: Array<{ text: string }> };
    };
  };
  await request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'wolo-tty-test', version: '1' },
  });
  send.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  const write = (path: string) =>
    request('tools/call', { name: 'write_file', arguments: { path, content: 'x' } });
  const close = async () => {
    send.end();
    return exited(terminal as never);
  };
  return { out, terminal, write, close };
}

async function waitFor(out: { screen: string }, text: string, n = 1) {
  const deadline = Date.now() + 10_000;
  while (out.screen.split(text).length <= n && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 25));
  return out.screen;
}

it('"Allow this operation? [Y/n/a/q]": the seed\'s sentence, Enter is Y, and the confirmed directory persists for the resumed session', async () => {
  const first = await gateway('s1');
  const a = join(area, 'project', 'a.py');
  const pending = first.write(a);
  const screen = await waitFor(first.out, '[Y/n/a/q]');
  expect(screen).toContain('Path Confirmation Required');
  expect(screen).toContain(`Path: ${a}`);
  expect(screen).toContain('This path is not in the default allowlist (/tmp) or configured whitelist.');
  first.terminal.stdin.write('\r'); // Enter alone
  expect((await pending).result.isError).toBeFalsy();
  expect(readFileSync(a, 'utf8')).toBe('x');
  // "Y - Allow and confirm the path's containing directory for this session": no second question.
  expect((await first.write(join(area, 'project', 'b.py'))).result.isError).toBeFalsy();
  expect(first.out.screen.split('[Y/n/a/q]').length - 1).toBe(1);
  expect(await first.close()).toBe(0);
  // "Confirmed directories are saved to ~/.wolo/sessions/<session_id>/": resuming keeps them.
  expect(existsSync(join(root, '.wolo', 'sessions', 's1'))).toBe(true);
  const resumed = await gateway('s1');
  expect((await resumed.write(join(area, 'project', 'c.py'))).result.isError).toBeFalsy();
  expect(resumed.out.screen).not.toContain('[Y/n/a/q]');
  expect(await resumed.close()).toBe(0);
}, 60_000);
