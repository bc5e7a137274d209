import { spawnSync } from 'node:child_process';
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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from './support/cli.js';

// The Claude Code hook under `sandbox: uncertain`: an uncertain Bash call is rewritten through PreToolUse
// `updatedInput`, and the rewritten command runs in a real shell, as Claude Code would run it.
let root: string;
let ws: string;
let home: string;
let audit: string;

function policyFile(name: string, mode: string): string {
  const file = join(root, name);
  writeFileSync(
    file,
    [
      `sandbox: ${mode}`,
      'default: read',
      'rules:',
      '  - { pattern: "<workspace>/**", access: write }',
      '  - { pattern: "~/.ssh/**", access: deny }',
      '',
    ].join('\n'),
  );
  return file;
}

beforeAll(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-hook-sandbox-')));
  ws = join(root, 'ws');
  home = join(root, 'home');
  mkdirSync(ws, { recursive: true });
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'CANARY-SSH');
  audit = join(root, 'audit.log');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function hook(command: string, policy: string, env: NodeJS.ProcessEnv = {}) {
  const event = {
    session_id: 's1',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command, description: 'run it', timeout: 60000 },
    cwd: ws,
  };
  const r = spawnSync(
    process.execPath,
    [BIN, 'hook', 'claude-code', '--dialect', 'toolgate', '--policy', policy, '--audit', audit],
    {
      input: JSON.stringify(event),
      encoding: 'utf8',
      env: { ...process.env, HOME: home, CLAUDE_PROJECT_DIR: ws, ...env },
    },
  );
  return { code: r.status, out: r.stdout, err: r.stderr };
}

// `$SCRIPT` is unset when the hook judges the call: the path it names cannot be known, so analysis cannot
// prove the call. The shell that runs it sets it.
const UNCERTAIN = 'cat "$SCRIPT_TARGET" > made.txt; echo done; cat "$SECRET"';

describe('claude-code hook with sandbox: uncertain', () => {
  it('rewrites an uncertain Bash call into a sandboxed one that runs in a real shell', () => {
    const answer = hook(UNCERTAIN, policyFile('uncertain.yaml', 'uncertain'));
    expect(answer.code).toBe(0);
    const out = JSON.parse(answer.out).hookSpecificOutput;
    expect(out.permissionDecision).toBe('allow');
    expect(out.permissionDecisionReason).toMatch(/sandboxed/);
    expect(out.updatedInput.description).toBe('run it');
    expect(out.updatedInput.timeout).toBe(60000);
    expect(out.updatedInput.command).toMatch(/^bwrap /);
    // the model is told it runs confined, and why (issue 22)
    expect(out.additionalContext).toMatch(/^toolgate: this command ran inside an OS sandbox .*SCRIPT_TARGET/);

    writeFileSync(join(ws, 'source.txt'), 'copied');
    const shell = spawnSync('/bin/bash', ['-c', out.updatedInput.command], {
      cwd: ws,
      encoding: 'utf8',
      env: {
        ...process.env,
        HOME: home,
        SCRIPT_TARGET: join(ws, 'source.txt'),
        SECRET: join(home, '.ssh', 'id_rsa'),
      },
    });
    expect(shell.stdout).toBe('done\n'); // ran, in the workspace…
    expect(readFileSync(join(ws, 'made.txt'), 'utf8')).toBe('copied');
    expect(shell.stderr).toMatch(/id_rsa/); // …and the kernel refused the denied read
    expect(shell.stdout).not.toContain('CANARY');

    // The audit record says the call was sandboxed (recorded at the default level: it is not a plain allow).
    const records = readFileSync(audit, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const last = records.at(-1);
    expect(last.decision).toBe('allow');
    expect(last.sandboxed.mode).toBe('uncertain');
    expect(last.sandboxed.uncertain[0]).toMatch(/PATH_UNCERTAIN/);
  });

  it("keeps toolgate's cache read-only in the rewritten command, even where the policy lets it write", () => {
    const file = join(root, 'cache-writable.yaml');
    writeFileSync(
      file,
      [
        'sandbox: uncertain',
        'default: read',
        'rules:',
        '  - { pattern: "<workspace>/**", access: write }',
        '  - { pattern: "~/.cache/**", access: write }',
        '',
      ].join('\n'),
    );
    const answer = hook('echo x > "$CACHE/planted"; echo y > "$HOME/.cache/other"', file);
    const command = JSON.parse(answer.out).hookSpecificOutput.updatedInput.command as string;
    const shell = spawnSync('/bin/bash', ['-c', command], {
      cwd: ws,
      encoding: 'utf8',
      env: { ...process.env, HOME: home, CACHE: join(home, '.cache', 'toolgate') },
    });
    expect(shell.stderr).toMatch(/Read-only file system/);
    expect(existsSync(join(home, '.cache', 'toolgate', 'planted'))).toBe(false);
    expect(readFileSync(join(home, '.cache', 'other'), 'utf8')).toBe('y\n');
  });

  it('keeps a statically denied call denied', () => {
    const answer = hook('cat ~/.ssh/id_rsa; cat "$SCRIPT_TARGET"', policyFile('uncertain.yaml', 'uncertain'));
    const out = JSON.parse(answer.out).hookSpecificOutput;
    expect(out.permissionDecision).toBe('deny');
    expect(out.permissionDecisionReason).toMatch(/PATH_DENIED/);
    expect(out.updatedInput).toBeUndefined();
  });

  it('leaves a provable call alone, and denies an uncertain one with sandbox: off', () => {
    // A provable allow defers to Claude Code's own permission flow: no decision, no rewrite.
    expect(hook('echo hi > notes.txt', policyFile('uncertain.yaml', 'uncertain')).out).toBe('');
    const off = JSON.parse(hook(UNCERTAIN, policyFile('off.yaml', 'off')).out).hookSpecificOutput;
    expect(off.permissionDecision).toBe('deny');
    expect(off.permissionDecisionReason).toMatch(/PATH_UNCERTAIN/);
  });

  it('sandboxes a provable call too with sandbox: always', () => {
    const out = JSON.parse(
      hook('echo hi > notes.txt', policyFile('always.yaml', 'always')).out,
    ).hookSpecificOutput;
    expect(out.permissionDecision).toBe('allow');
    expect(out.updatedInput.command).toMatch(/^bwrap .* -- \/bin\/bash -c 'echo hi > notes.txt'$/);
  });

  it('falls back to deny, never to an unconfined run, when bubblewrap is unavailable', () => {
    const answer = hook(UNCERTAIN, policyFile('uncertain.yaml', 'uncertain'), { PATH: '/nonexistent' });
    const out = JSON.parse(answer.out).hookSpecificOutput;
    expect(out.permissionDecision).toBe('deny');
    expect(out.permissionDecisionReason).toMatch(/SANDBOX_UNAVAILABLE/);
    expect(out.permissionDecisionReason).toMatch(/bubblewrap is not installed/);
  });

  it('gemini-cli, whose hook cannot rewrite a call, denies it rather than run it unconfined', () => {
    const event = {
      session_id: 'g',
      hook_event_name: 'BeforeTool',
      tool_name: 'run_shell_command',
      tool_input: { command: UNCERTAIN },
      cwd: ws,
    };
    const r = spawnSync(
      process.execPath,
      [
        BIN,
        'hook',
        'gemini-cli',
        '--dialect',
        'toolgate',
        '--policy',
        policyFile('uncertain.yaml', 'uncertain'),
      ],
      { input: JSON.stringify(event), encoding: 'utf8', env: { ...process.env, HOME: home } },
    );
    const answer = JSON.parse(r.stdout) as { decision: string; reason: string };
    expect(answer.decision).toBe('deny');
    expect(answer.reason).toMatch(/SANDBOX_UNAVAILABLE/);
  });
});
