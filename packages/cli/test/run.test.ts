import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
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

// Every suite runs both ways `toolgate run` can start: its plan made by the hook server (bin/toolgate.cjs
// asks the warm server, then runs bubblewrap itself: the first run of a home starts the server) and made in
// its own process (the server off).
const MODES = ['served', 'in-process'] as const;
let mode: (typeof MODES)[number] = 'served';
let trace: string;

const env = (extra: NodeJS.ProcessEnv = {}) => ({
  ...process.env,
  HOME: home,
  TOOLGATE_HOOK_TRACE: trace,
  ...(mode === 'in-process' ? { TOOLGATE_HOOK_SERVER: 'off' } : {}),
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

describe.each(MODES)('toolgate run (%s)', (m) => {
  beforeAll(() => {
    mode = m;
    trace = join(root, `trace-${m}.log`);
  });

  afterAll(() => {
    // Who made the plans: the server, from the first run after the one that started it — except the forms
    // only the full CLI reads (the server declines them); or never, when it is off.
    const lines = readFileSync(trace, 'utf8').trim().split('\n');
    const isServed = (l: string) => / run served by \d+$/.test(l);
    if (m === 'in-process') return void expect(lines.filter(isServed)).toEqual([]);
    const first = lines.findIndex(isServed);
    expect(first).toBeGreaterThan(0);
    expect(lines.filter(isServed).length).toBeGreaterThan(20);
    // (and the one run of the --print comparison with the server off)
    const others = lines.slice(first).filter((l) => !isServed(l));
    expect(others.filter((l) => !/declined|no server for this environment/.test(l))).toEqual([]);
  });

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
        `echo ${mode} > commit-${mode}.txt && git add commit-${mode}.txt && git commit -qm "from the sandbox" && git log --format=%s`,
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

    // No probe runs before the command: bubblewrap's own refusal to build the sandbox must still be exit 125.
    it('refuses with exit 125 when bubblewrap cannot set the sandbox up (here: a cwd it cannot enter)', () => {
      const r = run(['sh', '-c', `echo ran > ${join(root, 'ran.txt')}`], {
        args: ['--cwd', join(root, 'no-such-dir')],
      });
      expect(r.code).toBe(125);
      expect(r.err).toMatch(/Can't chdir/);
      expect(r.err).toMatch(/toolgate run: the command did not run/);
      expect(existsSync(join(root, 'ran.txt'))).toBe(false);
    });

    it('exits 127, like a shell, when the program is not found inside the sandbox, and says so (issue 25)', () => {
      const r = run(['no-such-program-anywhere']);
      expect(r.code).toBe(127);
      expect(r.err).toMatch(/toolgate run: no-such-program-anywhere: command not found inside the sandbox/);
    });
  });

  describe('toolgate run: start-up caches never change what is enforced', () => {
    it('an edit of the policy between two runs is enforced by the next run (the compiled-policy cache is checked)', () => {
      const file = join(root, 'edited.yaml');
      writeFileSync(join(ws, 'notes.txt'), 'CANARY-NOTES');
      const lines = ['default: read', 'rules:', '  - { pattern: "<workspace>/**", access: write }'];
      writeFileSync(file, `${lines.join('\n')}\n`);
      const before = spawnSync(process.execPath, [BIN, 'run', '--policy', file, '--', 'cat', 'notes.txt'], {
        cwd: ws,
        env: env(),
        encoding: 'utf8',
      });
      expect(before.stdout).toBe('CANARY-NOTES');
      writeFileSync(
        file,
        `${[...lines, '  - { pattern: "<workspace>/notes.txt", access: deny }'].join('\n')}\n`,
      );
      const after = spawnSync(process.execPath, [BIN, 'run', '--policy', file, '--', 'cat', 'notes.txt'], {
        cwd: ws,
        env: env(),
        encoding: 'utf8',
      });
      expect(after.status).not.toBe(0);
      expect(after.stdout).not.toMatch(/CANARY/);
    });

    it('a damaged code cache is rejected and rewritten; the run is unchanged', () => {
      const dir = join(home, '.cache', 'toolgate', 'code');
      expect(run(['true']).code).toBe(0);
      // Served, this process loads only the exec bundle (the server has the rest); in process, the run bundle.
      const kind = mode === 'served' ? 'exec-' : 'run-';
      const cached = readdirSync(dir).filter((n) => n.startsWith(kind));
      expect(cached).toHaveLength(1);
      const file = join(dir, cached[0]!);
      const good = readFileSync(file);
      writeFileSync(file, Buffer.alloc(good.length, 7));
      const r = run(['sh', '-c', 'cat .env; exit 5']);
      expect(r.code).toBe(5);
      expect(r.out).not.toMatch(/CANARY/);
      expect(readFileSync(file).equals(Buffer.alloc(good.length, 7))).toBe(false);
    });

    it('each run walks the tree afresh: a .env made after one run is masked in the next', () => {
      const dir = join(ws, 'later');
      mkdirSync(dir, { recursive: true });
      expect(run(['sh', '-c', 'ls later']).code).toBe(0);
      writeFileSync(join(dir, '.env'), 'CANARY-LATER');
      const r = run(['cat', 'later/.env']);
      expect(r.code).not.toBe(0);
      expect(r.out).not.toMatch(/CANARY/);
      rmSync(dir, { recursive: true, force: true });
    });

    it('the plan is the same made by the server or in process (--print)', () => {
      const printed = (server: boolean) =>
        spawnSync(process.execPath, [BIN, 'run', '--policy', policy, '--print', '--', 'make', 'test'], {
          cwd: ws,
          env: { ...env(), ...(server ? {} : { TOOLGATE_HOOK_SERVER: 'off' }) },
          encoding: 'utf8',
        });
      const a = printed(true);
      const b = printed(false);
      expect(a.status).toBe(0);
      expect(a.stdout).toMatch(/^bwrap .* -- make test\n$/);
      expect(a.stdout).toBe(b.stdout);
    });
  });

  describe('toolgate run: what the next toolgate process trusts stays read-only inside', () => {
    // `~/.cache/**: write` is what docs/sandbox.md suggests for a workload that needs a cache. Toolgate's own
    // cache is in there: a command that could rewrite a compiled policy in it would choose the policy of every
    // later run and hook call, outside the sandbox.
    it('a sandboxed command cannot rewrite the compiled-policy cache, even where the policy lets it write', () => {
      const file = join(root, 'cache-writable.yaml');
      writeFileSync(
        file,
        [
          'default: read',
          'rules:',
          '  - { pattern: "<workspace>/**", access: write }',
          '  - { pattern: "~/.cache/**", access: write }',
          '  - { pattern: "~/.ssh/**", access: deny }',
          '',
        ].join('\n'),
      );
      const runWith = (command: string[]) =>
        spawnSync(process.execPath, [BIN, 'run', '--policy', file, '--', ...command], {
          cwd: ws,
          env: env(),
          encoding: 'utf8',
        });
      expect(runWith(['true']).status).toBe(0);
      const forge = [
        "const fs = require('node:fs');",
        "const dir = process.env.HOME + '/.cache/toolgate/policies/';",
        'for (const name of fs.readdirSync(dir)) {',
        '  const entry = JSON.parse(fs.readFileSync(dir + name));',
        "  entry.policy.rules = entry.policy.rules.filter((r) => r.access !== 'deny');",
        '  fs.writeFileSync(dir + name, JSON.stringify(entry));',
        '}',
      ].join('\n');
      const attack = runWith(['node', '-e', forge]);
      expect(attack.status).not.toBe(0);
      expect(attack.stderr).toMatch(/EROFS/);
      expect(runWith(['sh', '-c', 'echo other > ~/.cache/other && cat ~/.cache/other']).stdout).toBe(
        'other\n',
      );
      const after = runWith(['cat', join(home, '.ssh', 'id_rsa')]);
      expect(after.status).not.toBe(0);
      expect(after.stdout).not.toMatch(/CANARY/);
    });
  });

  describe('toolgate run: arguments', () => {
    it('what the fast path does not read goes to the full CLI: --help, no --, an unknown option', () => {
      const help = spawnSync(process.execPath, [BIN, 'run', '--help'], { encoding: 'utf8' });
      expect(help.status).toBe(0);
      expect(help.stdout).toMatch(/Usage: toolgate run/);
      const noDashes = spawnSync(process.execPath, [BIN, 'run', '--policy', policy, 'false'], {
        cwd: ws,
        env: env(),
      });
      expect(noDashes.status).toBe(1);
      const unknown = spawnSync(process.execPath, [BIN, 'run', '--bogus', '--policy', policy, '--', 'true'], {
        encoding: 'utf8',
        env: env(),
      });
      expect(unknown.status).toBe(2);
      expect(unknown.stderr).toMatch(/unknown option '--bogus'/);
    });

    it('a bad policy fails with exit 2 naming the file, and nothing runs', () => {
      const bad = join(root, 'bad.yaml');
      writeFileSync(bad, 'default: read\nrules:\n  - { pattern: "/x/**", access: sometimes }\n');
      const r = spawnSync(process.execPath, [BIN, 'run', '--policy', bad, '--', 'sh', '-c', 'echo ran'], {
        cwd: ws,
        env: env(),
        encoding: 'utf8',
      });
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(bad);
      expect(r.stderr).not.toMatch(/internal error|\n./); // one line, no stack
      expect(r.stdout).toBe('');
      const missing = spawnSync(
        process.execPath,
        [BIN, 'run', '--policy', join(root, 'missing.yaml'), '--', 'sh', '-c', 'echo ran'],
        { cwd: ws, env: env(), encoding: 'utf8' },
      );
      expect(missing.status).toBe(2);
      expect(missing.stderr).toMatch(/^toolgate: .*missing\.yaml: cannot read the policy file.*\n$/);
      expect(missing.stdout).toBe('');
    });
  });
});
