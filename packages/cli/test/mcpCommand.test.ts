import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ScriptedClient } from '../src/demo/scriptedClient.js';
import { childTransport } from './support/childTransport.js';
import { exited, FILESYSTEM_SERVER, spawnCli } from './support/cli.js';

let root: string;
let ws: string;
let out: string;
let policy: string;

beforeEach(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-mcp-cli-')));
  ws = join(root, 'ws');
  out = join(root, 'outside');
  mkdirSync(join(ws, 'secrets'), { recursive: true });
  mkdirSync(out);
  writeFileSync(join(ws, 'hello.txt'), 'hello from the workspace\n');
  writeFileSync(join(out, 'secret.txt'), 'top secret\n');
  symlinkSync(out, join(ws, 'link'));
  policy = join(root, 'policy.yaml');
  writeFileSync(
    policy,
    [
      'default: deny',
      'rules:',
      '  - { pattern: "<workspace>/**", access: write }',
      '  - { pattern: "<workspace>/secrets/**", access: prompt }',
      '',
    ].join('\n'),
  );
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function text(response: Record<string, unknown>): string {
  const result = response.result as { content: Array<{ text: string }> };
  return result.content.map((c) => c.text).join('');
}

async function session(
  extra: string[] = [],
  capabilities: Record<string, unknown> = {},
  dialect: string[] = ['--dialect', 'toolgate'],
) {
  const child = spawnCli(
    [
      'mcp',
      ...dialect,
      '--policy',
      policy,
      '--cwd',
      ws,
      ...extra,
      '--',
      process.execPath,
      FILESYSTEM_SERVER,
      root,
    ],
    { ...process.env, HOME: root },
  );
  const client = new ScriptedClient(childTransport(child));
  await client.start();
  const init = await client.initialize(capabilities);
  const call = (name: string, args: Record<string, unknown>) =>
    client.request('tools/call', { name, arguments: args });
  return { child, client, init, call };
}

describe('toolgate mcp (the built CLI) in front of the real filesystem server', () => {
  it('relays allowed calls, denies the rest with isError envelopes, and exits 0 when the client hangs up', async () => {
    const { child, call, init } = await session();
    expect((init.result as { serverInfo: { name: string } }).serverInfo.name).toMatch(/filesystem/i);
    expect(text(await call('read_text_file', { path: join(ws, 'hello.txt') }))).toContain(
      'hello from the workspace',
    );
    const denied = (await call('write_file', { path: join(out, 'secret.txt'), content: 'pwned' })).result as {
      isError: boolean;
      content: Array<{ text: string }>;
    };
    expect(denied.isError).toBe(true);
    expect(JSON.parse(denied.content[0]!.text)).toMatchObject({
      code: 'PATH_DENIED',
      path: join(out, 'secret.txt'),
    });
    expect(readFileSync(join(out, 'secret.txt'), 'utf8')).toBe('top secret\n');
    const link = (await call('read_text_file', { path: join(ws, 'link', 'secret.txt') })).result as {
      isError: boolean;
    };
    expect(link.isError).toBe(true);
    child.stdin.end();
    expect(await exited(child)).toBe(0);
  });

  it('--dialect may be omitted (inferred from the file); a wrong one is exit 2 naming the mismatch', async () => {
    const { child, call } = await session([], {}, []);
    const denied = (await call('write_file', { path: join(out, 'x.txt'), content: 'x' })).result as {
      isError: boolean;
      content: Array<{ text: string }>;
    };
    expect(JSON.parse(denied.content[0]!.text).code).toBe('PATH_DENIED');
    child.stdin.end();
    expect(await exited(child)).toBe(0);
    const wrong = spawnCli(
      ['mcp', '--dialect', 'openfang', '--policy', policy, '--', process.execPath, FILESYSTEM_SERVER, root],
      { ...process.env, HOME: root },
    );
    let stderr = '';
    wrong.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    expect(await exited(wrong)).toBe(2);
    expect(stderr).toMatch(/--dialect openfang recognises nothing.*a toolgate policy/);
  });

  it('composes the policy file’s plugins: section (a third-party plugin with options), as check and hook do', async () => {
    writeFileSync(
      join(root, 'no-suffix.mjs'),
      `export function noSuffix({ suffix }) {
         return { name: 'no-suffix', apply(hooks) { hooks.beforeToolCall.tap('no-suffix', (call) =>
           typeof call.args.path === 'string' && call.args.path.endsWith(suffix)
             ? { action: 'deny', code: 'PATH_DENIED', reason: 'no ' + suffix + ' files (plugin)' } : undefined) } };
       }`,
    );
    writeFileSync(
      policy,
      `${readFileSync(policy, 'utf8')}plugins:\n  - { package: ./no-suffix.mjs, options: { suffix: .txt } }\n`,
    );
    const { child, call } = await session();
    const denied = (await call('read_text_file', { path: join(ws, 'hello.txt') })).result as {
      isError: boolean;
      content: Array<{ text: string }>;
    };
    expect(denied.isError).toBe(true);
    expect(denied.content[0]!.text).toContain('no .txt files (plugin)');
    writeFileSync(join(ws, 'notes.md'), 'notes\n');
    expect(text(await call('read_text_file', { path: join(ws, 'notes.md') }))).toContain('notes');
    child.stdin.end();
    expect(await exited(child)).toBe(0);
  });

  it('a prompt with no elicitation goes to --approvals (auto-deny, auto-allow)', async () => {
    const target = join(ws, 'secrets', 'k.txt');
    const denying = await session(['--approvals', 'auto-deny']);
    const refused = (await denying.call('write_file', { path: target, content: 'k' })).result as {
      isError: boolean;
      content: Array<{ text: string }>;
    };
    expect(JSON.parse(refused.content[0]!.text).code).toBe('PROMPT_DENIED');
    expect(existsSync(target)).toBe(false);
    denying.child.stdin.end();
    await exited(denying.child);
    const allowing = await session(['--approvals', 'auto-allow']);
    const written = (await allowing.call('write_file', { path: target, content: 'k' })).result as {
      isError?: boolean;
    };
    expect(written.isError).toBeFalsy();
    expect(readFileSync(target, 'utf8')).toBe('k');
    allowing.child.stdin.end();
    await exited(allowing.child);
  });

  it('a client that supports elicitation is asked instead, and --audit records every decision', async () => {
    const audit = join(root, 'audit.jsonl');
    const target = join(ws, 'secrets', 'k.txt');
    const s = await session(['--audit', audit], { elicitation: {} });
    s.client.on('elicitation/create', () => ({ action: 'accept', content: { approve: true } }));
    const written = (await s.call('write_file', { path: target, content: 'k' })).result as {
      isError?: boolean;
    };
    expect(written.isError).toBeFalsy();
    await s.call('read_text_file', { path: join(out, 'secret.txt') });
    s.child.stdin.end();
    expect(await exited(s.child)).toBe(0);
    const records = readFileSync(audit, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(records)).toContain('PATH_DENIED');
  });

  it('exits 1 with a clear message when the server dies', async () => {
    const child = spawnCli(
      [
        'mcp',
        '--dialect',
        'toolgate',
        '--policy',
        policy,
        '--cwd',
        ws,
        '--',
        process.execPath,
        '-e',
        'process.exit(3)',
      ],
      { ...process.env, HOME: root },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    expect(await exited(child)).toBe(1);
    expect(stderr).toMatch(/upstream MCP server closed the connection/);
  });

  it.each([
    [['--dialect', 'nope', '--policy', 'x.yaml', '--', 'node'], /--dialect must be one of/],
    [['--dialect', 'toolgate', '--policy', '/nonexistent/policy.yaml', '--', 'node'], /nonexistent/],
    [
      ['--dialect', 'toolgate', '--policy', 'POLICY', '--approvals', 'maybe', '--', 'node'],
      /--approvals must be one of/,
    ],
    [['--dialect', 'toolgate', '--policy', 'POLICY'], /server to guard/],
  ])('usage errors exit 2 before spawning anything: %j', async (args, message) => {
    const child = spawnCli(['mcp', ...args.map((a) => (a === 'POLICY' ? policy : a))], {
      ...process.env,
      HOME: root,
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    expect(await exited(child)).toBe(2);
    expect(stderr).toMatch(message);
  });
});
