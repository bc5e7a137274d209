import {
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
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ScriptedClient } from '../src/demo/scriptedClient.js';
import { childTransport } from './support/childTransport.js';
import { exited, spawnCli } from './support/cli.js';

// `toolgate mcp` in front of a server offering desktop-commander's terminal tools under their plain names
// (as a gateway sees them): the shell plugin analyses them, and a denied command never reaches the server.
const SERVER = fileURLToPath(new URL('./support/recordingShellServer.mjs', import.meta.url));

let root: string;
let ws: string;
let log: string;
let policy: string;

beforeEach(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-mcp-shell-')));
  ws = join(root, 'ws');
  mkdirSync(join(ws, 'src'), { recursive: true });
  mkdirSync(join(root, '.ssh'));
  writeFileSync(join(root, '.ssh', 'id_rsa'), 'KEY');
  log = join(root, 'calls.jsonl');
  policy = join(root, 'policy.yaml');
  writeFileSync(
    policy,
    [
      'default: deny',
      'rules:',
      '  - { pattern: "<workspace>/**", access: write }',
      '  - { pattern: "~/.ssh/**", access: deny }',
      '',
    ].join('\n'),
  );
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

async function session() {
  const child = spawnCli(
    ['mcp', '--dialect', 'toolgate', '--policy', policy, '--cwd', ws, '--', process.execPath, SERVER, log],
    { ...process.env, HOME: root },
  );
  const client = new ScriptedClient(childTransport(child));
  await client.start();
  await client.initialize({});
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.request('tools/call', { name, arguments: args })).result as {
      isError?: boolean;
      content: Array<{ text: string }>;
    };
  return { child, call };
}

const received = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : []);

describe('toolgate mcp in front of a shell-tool server', () => {
  it('denies start_process / interact_with_process / an undeclared cmd tool reading ~/.ssh; relays ls src', async () => {
    const s = await session();
    for (const [name, args] of [
      ['start_process', { command: 'cat ~/.ssh/id_rsa', timeout_ms: 1000 }],
      ['start_process', { command: 'cat id_rsa', timeout_ms: 1000, shell: 'pwsh' }],
      ['interact_with_process', { pid: 1, input: 'cat ~/.ssh/id_rsa\n' }],
      ['frobnicate', { cmd: 'cat ~/.ssh/id_rsa' }],
    ] as const) {
      const r = await s.call(name, args);
      expect(r.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(JSON.parse(r.content[0]!.text).code).toMatch(/PATH_DENIED|PATH_UNCERTAIN/);
    }
    expect(received()).toEqual([]);
    const ok = await s.call('start_process', { command: 'ls src', timeout_ms: 1000 });
    expect(ok.isError).toBeFalsy();
    expect(ok.content[0]!.text).toBe('received start_process');
    expect(received()).toHaveLength(1);
    s.child.stdin.end();
    expect(await exited(s.child)).toBe(0);
  });
});
