import { spawn, spawnSync } from 'node:child_process';
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

// `toolgate run` for real: the built CLI, real bubblewrap, real npm, git and python in a temp workspace
// with a fake HOME.
let root: string;
let ws: string;
let home: string;
let policy: string;

beforeAll(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-run-')));
  ws = join(root, 'ws');
  home = join(root, 'home');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  mkdirSync(join(ws, 'test'), { recursive: true });
  mkdirSync(join(ws, 'secrets'));
  writeFileSync(join(ws, 'secrets', 'token'), 'CANARY-TOKEN');
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'CANARY-SSH');
  writeFileSync(join(ws, '.env'), 'CANARY-ENV');
  // `npm test` runs whatever the package says: here it writes coverage/ in the workspace, and tries ~/.ssh.
  writeFileSync(
    join(ws, 'package.json'),
    JSON.stringify({
      name: 'demo',
      version: '1.0.0',
      scripts: { test: 'node test/run.js' },
    }),
  );
  writeFileSync(
    join(ws, 'test', 'run.js'),
    [
      "const fs = require('node:fs');",
      "fs.mkdirSync('coverage', { recursive: true });",
      "fs.writeFileSync('coverage/lcov.info', 'TN:\\n');",
      "let leaked = 'no';",
      "try { leaked = fs.readFileSync(process.env.HOME + '/.ssh/id_rsa', 'utf8'); } catch {}",
      "console.log('tests passed, leaked=' + leaked);",
    ].join('\n'),
  );
  policy = join(root, 'policy.yaml');
  writeFileSync(
    policy,
    [
      'sandbox: uncertain',
      'default: read',
      'rules:',
      '  - { pattern: "<workspace>/**", access: write }',
      '  - { pattern: "<workspace>/secrets/**", access: prompt }',
      '  - { pattern: "~/.ssh/**", access: deny }',
      '  - { pattern: "**/.env", access: deny }',
      '',
    ].join('\n'),
  );
  const git = (...args: string[]) => spawnSync('git', args, { cwd: ws, env: { ...process.env, HOME: home } });
  git('init', '-q');
  git('add', '-A');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const env = (extra: NodeJS.ProcessEnv = {}) => ({
  ...process.env,
  HOME: home,
  GIT_AUTHOR_NAME: 'a',
  GIT_AUTHOR_EMAIL: 'a@example.com',
  GIT_COMMITTER_NAME: 'a',
  GIT_COMMITTER_EMAIL: 'a@example.com',
  npm_config_update_notifier: 'false',
  ...extra,
});

function run(command: string[], opts: { input?: string; args?: string[]; env?: NodeJS.ProcessEnv } = {}) {
  const r = spawnSync(
    process.execPath,
    [BIN, 'run', '--policy', policy, ...(opts.args ?? []), '--', ...command],
    {
      cwd: ws,
      env: opts.env ?? env(),
      encoding: 'utf8',
      input: opts.input ?? '',
      timeout: 60_000,
    },
  );
  return { code: r.status, signal: r.signal, out: r.stdout, err: r.stderr };
}

describe('toolgate run: real work succeeds', () => {
  it('npm test writes coverage/ in the workspace (and cannot read ~/.ssh)', () => {
    const r = run(['npm', 'test']);
    expect(r.err).not.toMatch(/toolgate/);
    expect(r.code).toBe(0);
    expect(r.out).toContain('tests passed, leaked=no');
    expect(readFileSync(join(ws, 'coverage', 'lcov.info'), 'utf8')).toBe('TN:\n');
  });

  it('git commit', () => {
    const r = run([
      'sh',
      '-c',
      'git add package.json && git commit -qm "from the sandbox" && git log --format=%s',
    ]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('from the sandbox');
  });

  it('python3 -m venv .venv', () => {
    const r = run(['python3', '-m', 'venv', '.venv']);
    expect(r.code).toBe(0);
    expect(existsSync(join(ws, '.venv', 'bin', 'python'))).toBe(true);
  });

  it('passes cwd, environment and stdin/stdout/stderr through', () => {
    const r = run(['sh', '-c', 'pwd; echo "$TOOLGATE_TEST_VAR"; cat; echo to-stderr >&2'], {
      input: 'from stdin\n',
      env: env({ TOOLGATE_TEST_VAR: 'passed through' }),
    });
    expect(r.code).toBe(0);
    expect(r.out).toBe(`${ws}\npassed through\nfrom stdin\n`);
    expect(r.err).toBe('to-stderr\n');
  });
});

describe('toolgate run: the policy holds', () => {
  it('denied and unapproved prompt-tier paths cannot be read; an approved one can', () => {
    const r = run(['sh', '-c', 'cat .env ~/.ssh/id_rsa secrets/token']);
    expect(r.code).not.toBe(0);
    expect(r.out).not.toMatch(/CANARY/);
    const approved = run(['cat', 'secrets/token'], { args: ['--approve', 'secrets/token'] });
    expect(approved.code).toBe(0);
    expect(approved.out).toBe('CANARY-TOKEN');
  });

  it('cannot write ~/.ssh/authorized_keys or outside the workspace', () => {
    const r = run(['sh', '-c', `echo key >> ~/.ssh/authorized_keys; echo x > ${join(root, 'dropped')}`]);
    expect(r.code).not.toBe(0);
    expect(existsSync(join(home, '.ssh', 'authorized_keys'))).toBe(false);
    expect(existsSync(join(root, 'dropped'))).toBe(false);
  });
});

describe('toolgate run: exit codes and signals pass through', () => {
  it('exit codes', () => {
    expect(run(['sh', '-c', 'exit 7']).code).toBe(7);
    expect(run(['true']).code).toBe(0);
    expect(run(['false']).code).toBe(1);
  });

  it('a command killed by a signal ends toolgate run by the same signal', () => {
    const r = run(['sh', '-c', 'kill -TERM $$']);
    expect(r.signal).toBe('SIGTERM');
  });

  it('a signal sent to toolgate run reaches the command, which may trap it', async () => {
    const child = spawn(
      process.execPath,
      [
        BIN,
        'run',
        '--policy',
        policy,
        '--',
        'sh',
        '-c',
        'trap "echo trapped; exit 3" TERM; echo ready; while :; do sleep 0.05; done',
      ],
      { cwd: ws, env: env(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('ready')) resolve();
      });
    });
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(out).toContain('trapped');
    expect(code).toBe(3);
  });
});

describe('toolgate run: no sandbox, no run', () => {
  it('refuses with exit 125 and the reason when bubblewrap is not on PATH', () => {
    const r = run(['sh', '-c', 'echo ran > ran.txt'], { env: env({ PATH: '/nonexistent' }) });
    expect(r.code).toBe(125);
    expect(r.err).toMatch(/bubblewrap is not installed/);
    expect(existsSync(join(ws, 'ran.txt'))).toBe(false);
  });
});
