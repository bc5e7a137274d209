import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited, spawnCli } from './support/cli.js';

// Shell tools through the built `toolgate hook`, end to end: Claude Code `Bash` and MCP shell tools,
// Gemini CLI `run_shell_command`, undeclared tools carrying a command, and a policy's own `shell.tools`.
let root: string;
let ws: string;
let policy: string;
// Cases are listed before the temporary tree exists: `@SSH@` stands for its ~/.ssh.

beforeAll(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-hook-shell-')));
  ws = join(root, 'ws');
  mkdirSync(join(ws, 'src'), { recursive: true });
  mkdirSync(join(root, '.ssh'));
  writeFileSync(join(ws, 'src', 'a.ts'), 'a');
  writeFileSync(join(root, '.ssh', 'id_rsa'), 'KEY');
  policy = writePolicy(
    'policy.yaml',
    'shell:\n  tools:\n    job: { commandArg: argv, form: argv, cwdArg: dir }\n  notShell: [db_query]',
  );
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function writePolicy(name: string, shellBlock: string): string {
  const file = join(root, name);
  writeFileSync(
    file,
    [
      'default: deny',
      'rules:',
      '  - { pattern: "<workspace>/**", access: write }',
      '  - { pattern: "~/.ssh/**", access: deny }',
      '  - { pattern: "/etc/**", access: deny }',
      shellBlock,
      '',
    ].join('\n'),
  );
  return file;
}

async function hook(assistant: string, stdin: string, policyFile = policy, extra: string[] = []) {
  const child = spawnCli(['hook', assistant, '--dialect', 'toolgate', '--policy', policyFile, ...extra], {
    ...process.env,
    HOME: root,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  child.stdin.end(stdin);
  return { code: await exited(child), stdout, stderr };
}

function claude(tool: string, input: Record<string, unknown>): string {
  return JSON.stringify({
    session_id: 'c',
    transcript_path: '/tmp/t.jsonl',
    cwd: ws,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: tool,
    tool_input: input,
    tool_use_id: 'toolu_1',
  }).replaceAll('@SSH@', join(root, '.ssh'));
}

function gemini(tool: string, input: Record<string, unknown>): string {
  return JSON.stringify({
    session_id: 'g',
    transcript_path: '/tmp/g.json',
    cwd: ws,
    hook_event_name: 'BeforeTool',
    timestamp: '2026-11-23T08:00:00Z',
    tool_name: tool,
    tool_input: input,
  }).replaceAll('@SSH@', join(root, '.ssh'));
}

const claudeDecision = (stdout: string) =>
  (JSON.parse(stdout) as { hookSpecificOutput?: { permissionDecision?: string } }).hookSpecificOutput
    ?.permissionDecision;
const geminiDecision = (stdout: string) => (JSON.parse(stdout) as { decision?: string }).decision;

describe('toolgate hook claude-code: shell tools', () => {
  it.each([
    ['Bash', { command: 'cd ~/.ssh && cat id_rsa' }],
    ['Bash', { command: 'echo x > /etc/cron.d/x', description: 'x' }],
    ['mcp__desktop-commander__start_process', { command: 'cat ~/.ssh/id_rsa', timeout_ms: 5000 }],
    ['mcp__desktop-commander__execute_command', { command: 'cat ~/.ssh/id_rsa', timeout_ms: 5000 }],
    ['mcp__desktop-commander__interact_with_process', { pid: 7, input: 'cat ~/.ssh/id_rsa\n' }],
    ['mcp__tools__frobnicate', { cmd: 'cat ~/.ssh/id_rsa' }],
    ['mcp__runner__job', { argv: ['cat', 'id_rsa'], dir: '@SSH@' }],
  ])('%s %j is denied', async (tool, input) => {
    const r = await hook('claude-code', claude(tool, input));
    expect(r.code).toBe(0);
    expect(claudeDecision(r.stdout), r.stdout).toBe('deny');
  });

  it.each([
    ['Bash', { command: 'ls src' }],
    ['mcp__desktop-commander__start_process', { command: 'cat src/a.ts', timeout_ms: 5000 }],
    ['mcp__tools__frobnicate', { cmd: 'ls src' }],
    ['mcp__runner__job', { argv: ['ls', 'src'] }],
  ])('%s %j is allowed, its paths checked', async (tool, input) => {
    const r = await hook('claude-code', claude(tool, input));
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(''); // allowed: no decision, Claude Code's own permission flow runs
    // with the approveAllowed opt-in the allow is explicit and says the paths were checked
    const approved = await hook('claude-code', claude(tool, input), policy, ['--approve-allowed']);
    expect(claudeDecision(approved.stdout), approved.stdout).toBe('allow');
    expect(approved.stdout).toMatch(/allowed by policy \([1-9]\d* path/);
  });

  it('a tool the policy declares notShell is not judged as shell (no opinion)', async () => {
    const r = await hook('claude-code', claude('mcp__db__db_query', { command: 'SELECT 1' }));
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
  });

  it('a misspelt shell tool field in the policy blocks with the file, field and value', async () => {
    const bad = writePolicy('bad.yaml', 'shell:\n  tools:\n    job: { commandArg: argv, form: list }');
    const r = await hook('claude-code', claude('Bash', { command: 'ls' }), bad);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('shell.tools.job.form');
    expect(r.stderr).toContain('bad.yaml');
  });
});

describe('toolgate hook gemini-cli: run_shell_command and others', () => {
  it.each([
    ['run_shell_command', { command: 'cat ~/.ssh/id_rsa', description: 'x' }],
    ['run_shell_command', { command: 'cat id_rsa', directory: '@SSH@' }],
    ['run_shell_command', { command: 'cat id_rsa', dir_path: '@SSH@' }],
    ['mcp__tools__frobnicate', { script: 'cp ~/.ssh/id_rsa src/k' }],
  ])('%s %j is denied', async (tool, input) => {
    const r = await hook('gemini-cli', gemini(tool, input));
    expect(r.code).toBe(0);
    expect(geminiDecision(r.stdout), r.stdout).toBe('deny');
  });

  it('run_shell_command ls src (in the workspace, or with dir_path src) is allowed', async () => {
    for (const input of [{ command: 'ls src' }, { command: 'cat a.ts', dir_path: 'src' }]) {
      const r = await hook('gemini-cli', gemini('run_shell_command', input));
      expect(r.stdout).toBe('{}\n'); // no decision: Gemini CLI's own confirmation runs
      const approved = await hook('gemini-cli', gemini('run_shell_command', input), policy, [
        '--approve-allowed',
      ]);
      expect(geminiDecision(approved.stdout), approved.stdout).toBe('allow');
    }
  });
});
