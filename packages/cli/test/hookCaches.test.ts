import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BIN } from './support/cli.js';

// The hook's two on-disk caches (compiled policy, V8 code of the bundle) may only ever save time: corrupt or
// stale entries are recompiled, never trusted, and the answers stay the same.
let root: string;
let project: string;
let home: string;
let cache: string;
beforeAll(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-hook-caches-')));
  project = join(root, 'project');
  home = join(root, 'home');
  cache = join(root, 'cache');
  mkdirSync(project);
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(
    join(project, 'toolgate.yaml'),
    'default: deny\nrules:\n  - { pattern: "<workspace>/**", access: write }\n  - { pattern: "~/.ssh/**", access: deny }\n',
  );
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const event = (tool_name: string, tool_input: Record<string, unknown>) =>
  JSON.stringify({
    session_id: 's',
    transcript_path: '/tmp/t',
    cwd: project,
    hook_event_name: 'PreToolUse',
    tool_name,
    tool_input,
  });

function hook(input: string, extraEnv: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [BIN, 'hook', 'claude-code'], {
    cwd: project,
    input,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      HOME: home,
      CLAUDE_PROJECT_DIR: project,
      TOOLGATE_CACHE_DIR: cache,
      ...extraEnv,
    },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function answers() {
  const read = hook(event('Read', { file_path: join(project, 'a.ts') }));
  const ssh = hook(event('Bash', { command: 'cat ~/.ssh/id_rsa' }));
  return {
    read,
    ssh: {
      status: ssh.status,
      decision: JSON.parse(ssh.stdout || '{}').hookSpecificOutput?.permissionDecision,
    },
  };
}

const expected = { read: { status: 0, stdout: '', stderr: '' }, ssh: { status: 0, decision: 'deny' } };

it('are written on first use, and the answers are the same cold and warm', () => {
  expect(answers()).toEqual(expected);
  expect(readdirSync(join(cache, 'policies')).length).toBe(1);
  expect(readdirSync(join(cache, 'code')).some((f) => /^hook-.*\.bin$/.test(f))).toBe(true);
  expect(answers()).toEqual(expected);
});

it('corrupt entries are recompiled, not trusted', () => {
  for (const dir of ['policies', 'code'])
    for (const f of readdirSync(join(cache, dir))) writeFileSync(join(cache, dir, f), 'garbage\u0000{"v":1');
  expect(answers()).toEqual(expected);
  expect(answers()).toEqual(expected);
});

it('a policy edit is seen on the next call (no stale compile)', () => {
  writeFileSync(
    join(project, 'toolgate.yaml'),
    'default: deny\nrules:\n  - { pattern: "<workspace>/src/**", access: write }\n',
  );
  const denied = hook(event('Read', { file_path: join(project, 'a.ts') }));
  expect(JSON.parse(denied.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
});

it('TOOLGATE_CACHE=off writes nothing', () => {
  const off = join(root, 'off-cache');
  const r = hook(event('Read', { file_path: join(project, 'src', 'a.ts') }), {
    TOOLGATE_CACHE: 'off',
    TOOLGATE_CACHE_DIR: off,
  });
  expect(r).toEqual({ status: 0, stdout: '', stderr: '' });
  expect(existsSync(off)).toBe(false);
});
