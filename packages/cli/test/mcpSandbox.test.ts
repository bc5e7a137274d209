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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedClient } from '../src/demo/scriptedClient.js';
import { childTransport } from './support/childTransport.js';
import { exited, spawnCli } from './support/cli.js';

// `toolgate mcp` in front of a shell-tool server under `sandbox: uncertain`: a command analysis cannot prove
// reaches the server wrapped in bubblewrap; a statically denied one, and one for a shell the rewrite cannot
// speak, never reach it.
const SERVER = fileURLToPath(new URL('./support/recordingShellServer.mjs', import.meta.url));

let root: string;
let ws: string;
let log: string;
let policy: string;

beforeAll(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-mcp-sandbox-')));
  ws = join(root, 'ws');
  mkdirSync(ws, { recursive: true });
  mkdirSync(join(root, '.ssh'));
  log = join(root, 'calls.jsonl');
  policy = join(root, 'policy.yaml');
  writeFileSync(
    policy,
    [
      'sandbox: uncertain',
      'default: read',
      'rules:',
      '  - { pattern: "<workspace>/**", access: write }',
      '  - { pattern: "~/.ssh/**", access: deny }',
      '',
    ].join('\n'),
  );
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const received = () =>
  existsSync(log)
    ? readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { name: string; arguments: Record<string, unknown> })
    : [];

describe('toolgate mcp with sandbox: uncertain', () => {
  it('relays an uncertain shell command wrapped in the sandbox, and keeps denials', async () => {
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

    const sandboxed = await call('start_process', { command: 'cat "$TARGET"', timeout_ms: 1000 });
    expect(sandboxed.isError).toBeFalsy();
    // the model is told the call ran confined, and why (issue 22)
    expect(sandboxed.content.at(-1)?.text).toMatch(
      /^toolgate: this command ran inside an OS sandbox compiled from the policy because analysis could not prove it \(.*TARGET/,
    );
    const [first] = received();
    expect(first?.arguments.timeout_ms).toBe(1000);
    expect(first?.arguments.command).toMatch(/^bwrap .* -- \/bin\/bash -c 'cat "\$TARGET"'$/);

    const denied = await call('start_process', { command: 'cat ~/.ssh/id_rsa "$TARGET"', timeout_ms: 1000 });
    expect(denied.isError).toBe(true);
    expect(JSON.parse(denied.content[0]!.text).code).toBe('PATH_DENIED');
    const pwsh = await call('start_process', { command: 'cat "$TARGET"', timeout_ms: 1000, shell: 'pwsh' });
    expect(pwsh.isError).toBe(true);
    expect(JSON.parse(pwsh.content[0]!.text).code).toBe('SANDBOX_UNAVAILABLE');
    expect(received()).toHaveLength(1);
    child.stdin.end();
    expect(await exited(child)).toBe(0);
  });
});
