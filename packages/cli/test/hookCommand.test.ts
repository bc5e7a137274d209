import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited, spawnCli } from './support/cli.js';

let root: string;
let ws: string;
let policy: string;

beforeAll(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-hook-cli-')));
  ws = join(root, 'ws');
  mkdirSync(join(ws, 'secrets'), { recursive: true });
  writeFileSync(join(ws, 'a.txt'), 'a');
  policy = join(root, 'policy.yaml');
  writeFileSync(
    policy,
    [
      'default: deny',
      'rules:',
      '  - { pattern: "<workspace>/**", access: write }',
      '  - { pattern: "<workspace>/secrets/**", access: prompt }',
      '  - { pattern: "~/.ssh/**", access: deny }',
      '',
    ].join('\n'),
  );
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Runs the built `toolgate hook` as Claude Code / Gemini CLI would: event on stdin, answer on stdout + exit code. */
async function hook(
  assistant: string,
  stdin: string,
  args: string[] = ['--dialect', 'toolgate', '--policy', policy],
) {
  const child = spawnCli(['hook', assistant, ...args], { ...process.env, HOME: root });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  child.stdin.end(stdin);
  const code = await exited(child);
  return { code, stdout, stderr };
}

function claudeEvent(tool: string, input: Record<string, unknown>): string {
  return JSON.stringify({
    session_id: 'abc',
    transcript_path: '/tmp/t.jsonl',
    cwd: ws,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: tool,
    tool_input: input,
    tool_use_id: 'toolu_1',
  });
}

function decisionOf(stdout: string): string | undefined {
  return (JSON.parse(stdout) as { hookSpecificOutput?: { permissionDecision?: string } }).hookSpecificOutput
    ?.permissionDecision;
}

describe('toolgate hook claude-code (the built CLI)', () => {
  it('defers a workspace write to Claude Code (no decision: its own permission flow runs)', async () => {
    const r = await hook('claude-code', claudeEvent('Write', { file_path: join(ws, 'b.txt'), content: 'b' }));
    expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('--approve-allowed (opt-in) answers allow, which skips Claude Code’s prompt', async () => {
    const r = await hook(
      'claude-code',
      claudeEvent('Write', { file_path: join(ws, 'b.txt'), content: 'b' }),
      ['--dialect', 'toolgate', '--policy', policy, '--approve-allowed'],
    );
    expect(r.code).toBe(0);
    expect(decisionOf(r.stdout)).toBe('allow');
  });

  it('infers the dialect when --dialect is omitted, and refuses a wrong one (issue 17)', async () => {
    const r = await hook('claude-code', claudeEvent('Read', { file_path: '~/.ssh/id_rsa' }), [
      '--policy',
      policy,
    ]);
    expect(decisionOf(r.stdout)).toBe('deny');
    const wrong = await hook('claude-code', claudeEvent('Read', { file_path: '~/.ssh/id_rsa' }), [
      '--dialect',
      'hermes',
      '--policy',
      policy,
    ]);
    // A configuration error blocks the call (Claude Code: exit 2, the reason on stderr), never an allow.
    expect(wrong.code).toBe(2);
    expect(wrong.stdout).toBe('');
    expect(wrong.stderr).toMatch(/--dialect hermes recognises nothing.*a toolgate policy/);
  });

  it('denies ~/.ssh with the envelope as the reason', async () => {
    const r = await hook('claude-code', claudeEvent('Read', { file_path: '~/.ssh/id_rsa' }));
    expect(r.code).toBe(0);
    expect(decisionOf(r.stdout)).toBe('deny');
    expect(r.stdout).toContain('PATH_DENIED');
  });

  it('asks for a prompt-tier path', async () => {
    const r = await hook(
      'claude-code',
      claudeEvent('Edit', { file_path: join(ws, 'secrets', 'k'), old_string: 'a', new_string: 'b' }),
    );
    expect(decisionOf(r.stdout)).toBe('ask');
  });

  it('judges Bash commands through the shell plugin', async () => {
    const secret = await hook('claude-code', claudeEvent('Bash', { command: 'cat ~/.ssh/id_rsa | base64' }));
    expect(decisionOf(secret.stdout)).toBe('deny');
    expect(secret.stdout).toContain('PATH_DENIED');
    const fine = await hook('claude-code', claudeEvent('Bash', { command: 'cat a.txt' }));
    expect(fine).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  // Built lazily: the workspace exists only once beforeAll has run.
  const read = () => claudeEvent('Read', { file_path: join(ws, 'a.txt') });
  it.each([
    ['malformed JSON', () => '{"tool_name": "Read"', undefined],
    ['empty stdin', () => '', undefined],
    ['an unreadable policy', read, ['--dialect', 'toolgate', '--policy', '/nonexistent.yaml']],
    ['an unknown dialect', read, ['--dialect', 'klingon', '--policy', '/x.yaml']],
  ])('blocks with exit 2 and a reason on stderr on %s', async (_name, stdin, args) => {
    const r = await hook('claude-code', stdin(), args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/toolgate: call blocked: /);
  });

  it('blocks with exit 2 for an assistant it does not know', async () => {
    const r = await hook('vim', claudeEvent('Read', { file_path: join(ws, 'a.txt') }));
    expect(r.code).toBe(2);
  });
});

describe('toolgate hook gemini-cli (the built CLI)', () => {
  const gemini = (tool: string, input: Record<string, unknown>) =>
    JSON.stringify({
      session_id: 'g',
      transcript_path: '/tmp/g.json',
      cwd: ws,
      hook_event_name: 'BeforeTool',
      timestamp: '2026-11-22T08:00:00Z',
      tool_name: tool,
      tool_input: input,
    });

  it('defers on allow ({} — no decision) and denies with {decision, reason}', async () => {
    const ok = await hook('gemini-cli', gemini('read_file', { file_path: join(ws, 'a.txt') }));
    expect(ok).toEqual({ code: 0, stdout: '{}\n', stderr: '' });
    const no = await hook('gemini-cli', gemini('write_file', { file_path: '/etc/passwd', content: 'x' }));
    expect(JSON.parse(no.stdout)).toMatchObject({ decision: 'deny' });
    expect(JSON.parse(no.stdout).reason).toContain('PATH_DENIED');
  });

  it('settles prompts with --approvals (no ask in Gemini CLI)', async () => {
    const target = join(ws, 'secrets', 'g.txt');
    const denied = await hook('gemini-cli', gemini('write_file', { file_path: target, content: 'x' }));
    expect(JSON.parse(denied.stdout).reason).toContain('PROMPT_DENIED');
    const allowed = await hook('gemini-cli', gemini('write_file', { file_path: target, content: 'x' }), [
      '--dialect',
      'toolgate',
      '--policy',
      policy,
      '--approvals',
      'auto-allow',
      '--approve-allowed',
    ]);
    expect(JSON.parse(allowed.stdout).decision).toBe('allow');
  });

  it('audits decisions with --audit', async () => {
    const audit = join(root, 'hook-audit.jsonl');
    await hook('gemini-cli', gemini('write_file', { file_path: '/etc/passwd', content: 'x' }), [
      '--dialect',
      'toolgate',
      '--policy',
      policy,
      '--audit',
      audit,
    ]);
    expect(readFileSync(audit, 'utf8')).toContain('PATH_DENIED');
  });
});
