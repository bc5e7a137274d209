import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited, spawnCli } from './support/cli.js';

// issue 14: an unwritable --audit path made the hook and the gateway write nothing, silently; a hook whose
// stdin never closed waited forever (Claude Code then treats the killed hook as non-blocking: the tool runs).
let root: string;
let ws: string;
let policy: string;
let unwritable: string;

beforeAll(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-loud-')));
  ws = join(root, 'ws');
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, 'a.txt'), 'a');
  policy = join(root, 'policy.yaml');
  writeFileSync(policy, 'default: deny\nrules:\n  - { pattern: "<workspace>/**", access: write }\n');
  // A path beneath a regular file: no directory can be made there, not even by root.
  writeFileSync(join(root, 'plain-file'), '');
  unwritable = join(root, 'plain-file', 'audit', 'trail.log');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function event(tool: string, input: Record<string, unknown>): string {
  return JSON.stringify({
    session_id: 'abc',
    transcript_path: '/tmp/t.jsonl',
    cwd: ws,
    hook_event_name: 'PreToolUse',
    tool_name: tool,
    tool_input: input,
  });
}

async function hook(args: string[], stdin: string | undefined, env: NodeJS.ProcessEnv = {}) {
  const child = spawnCli(['hook', 'claude-code', '--dialect', 'toolgate', '--policy', policy, ...args], {
    ...process.env,
    HOME: root,
    ...env,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  if (stdin !== undefined) child.stdin.end(stdin);
  const started = Date.now();
  const code = await exited(child);
  return { code, stdout, stderr, ms: Date.now() - started };
}

describe('an audit trail that cannot be written is loud', () => {
  it('an allowed call: stderr names the trail, exit 1 (a non-blocking error the user sees)', async () => {
    const r = await hook(['--audit', unwritable], event('Read', { file_path: join(ws, 'a.txt') }));
    expect(r.stderr).toMatch(/audit trail .*trail\.log cannot be written/);
    expect(r.code).toBe(1);
  });

  it('a denied call stays denied (exit 0 with the deny on stdout) and stderr says why the trail failed', async () => {
    const r = await hook(['--audit', unwritable], event('Read', { file_path: '/etc/passwd' }));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('"permissionDecision":"deny"');
    expect(r.stderr).toMatch(/audit trail .* cannot be written/);
  });

  it('--audit-required: every call is blocked while the trail cannot be written', async () => {
    const r = await hook(
      ['--audit', unwritable, '--audit-required'],
      event('Read', { file_path: join(ws, 'a.txt') }),
    );
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/call blocked: audit trail .* cannot be written .*audit is required/);
  });

  it('a writable trail: nothing on stderr, the record is there', async () => {
    const file = join(root, 'ok', 'trail.log');
    const r = await hook(
      ['--audit', file, '--audit-required'],
      event('Read', { file_path: join(ws, 'a.txt') }),
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({
      level: 'DECISION',
      decision: 'allow',
      toolId: 'read_file',
    });
  });

  it('mcp with an unwritable --audit fails at start with exit 2, naming the file', async () => {
    const child = spawnCli(
      [
        'mcp',
        '--dialect',
        'toolgate',
        '--policy',
        policy,
        '--audit',
        unwritable,
        '--',
        process.execPath,
        '-e',
        '',
      ],
      { ...process.env, HOME: root },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    expect(await exited(child)).toBe(2);
    expect(stderr).toMatch(/--audit: audit trail .*trail\.log cannot be opened/);
  });
});

describe('hook stdin is read with a timeout', () => {
  it('an event that arrives in pieces on a socket stdin (read without node:net) is read whole and judged', async () => {
    const child = spawnCli(['hook', 'claude-code', '--dialect', 'toolgate', '--policy', policy], {
      ...process.env,
      HOME: root,
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    const text = event('Read', { file_path: '/etc/passwd' });
    child.stdin.write(text.slice(0, 40));
    // The hook has started and polls a socket with nothing more to read (EAGAIN) before the rest comes.
    setTimeout(() => child.stdin.end(text.slice(40)), 400);
    expect(await exited(child)).toBe(0);
    expect(stdout).toContain('"permissionDecision":"deny"');
  });

  it('stdin that never closes: the call is blocked (exit 2) with a reason, in about the timeout', async () => {
    const r = await hook([], undefined, { TOOLGATE_HOOK_STDIN_TIMEOUT_MS: '300' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/call blocked: no complete hook event on stdin within 300 ms/);
    expect(r.ms).toBeLessThan(10_000);
  });
});
