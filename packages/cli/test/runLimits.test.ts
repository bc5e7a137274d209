import { spawnSync } from 'node:child_process';
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

// `toolgate run` under the policy's wall-time limit (issue 23): the command is ended at the deadline by
// timeout(1) inside the sandbox, and toolgate run says so and exits 124. The command can stop that timer (it
// runs as the same uid in the sandbox's pid namespace): toolgate run then ends the run itself, from outside.

let root: string;
let ws: string;
let home: string;
const haveBwrap = spawnSync('bwrap', ['--version']).status === 0;

// Never skipped: a machine without the tools fails here (scripts/ensure-test-tools.sh installs them).
it('bubblewrap is installed', () => expect(haveBwrap).toBe(true));

beforeAll(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-run-limits-')));
  ws = join(root, 'ws');
  home = join(root, 'home');
  mkdirSync(ws, { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(
    join(ws, 'toolgate.yaml'),
    [
      'default: read',
      'rules:',
      '  - { pattern: "<workspace>/**", access: write }',
      'limits: { wallTime: 1s }',
      '',
    ].join('\n'),
  );
});

afterAll(() => {
  // The hook server this test's runs started (by its pid).
  const cache = join(home, '.cache', 'toolgate');
  for (const name of existsSync(cache) ? readdirSync(cache) : [])
    try {
      if (name.startsWith('hookd-'))
        process.kill(Number.parseInt(readFileSync(join(cache, name, 'server.pid'), 'utf8'), 10), 'SIGKILL');
    } catch {
      /* not running */
    }
  rmSync(root, { recursive: true, force: true });
});

function run(command: string[]) {
  const started = Date.now();
  const r = spawnSync(
    process.execPath,
    [BIN, 'run', '--policy', join(ws, 'toolgate.yaml'), '--', ...command],
    {
      cwd: ws,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home },
      encoding: 'utf8',
      timeout: 30_000,
    },
  );
  return { code: r.status, signal: r.signal, err: r.stderr, ms: Date.now() - started };
}

const ENDED =
  /toolgate run: the command was ended by the wall-time limit of the policy \(limits\.wallTime: 1s\); exit 124/;

describe('toolgate run: limits.wallTime', () => {
  it('a sleep past the wall time is ended at the deadline: exit 124 and why', () => {
    const r = run(['sleep', '30']);
    expect(r.code).toBe(124);
    expect(r.err).toMatch(ENDED);
    expect(r.ms).toBeLessThan(6_000);
  });

  it('a command that stops the timer in its sandbox is ended by toolgate run itself, processes and all', () => {
    // sh's parent in the sandbox is timeout(1): SIGSTOP keeps it from ever firing.
    const r = run(['/bin/sh', '-c', 'kill -STOP $PPID; exec sleep 61.25']);
    expect(r.code).toBe(124);
    expect(r.err).toMatch(ENDED);
    expect(r.ms).toBeLessThan(15_000);
    // bubblewrap died with toolgate run, and the sandbox with it.
    const left = () => spawnSync('pgrep', ['-f', 'sleep 61.25'], { encoding: 'utf8' }).stdout.trim();
    const end = Date.now() + 3_000;
    while (left() !== '' && Date.now() < end) spawnSync('sleep', ['0.05']);
    expect(left()).toBe('');
  }, 20_000);

  it('twin: a command that ends in time exits with its own code, and nothing is said', () => {
    const r = run(['/bin/sh', '-c', 'sleep 0.1; exit 3']);
    expect(r.code).toBe(3);
    expect(r.err).toBe('');
  });
});

describe('toolgate init: default limits', () => {
  it('writes limits the sandbox enforces (processes, memory, wall time), and everyday work runs under them', () => {
    const dir = join(root, 'init');
    mkdirSync(dir, { recursive: true });
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home };
    const init = spawnSync(process.execPath, [BIN, 'init', '--stdout'], { cwd: dir, env, encoding: 'utf8' });
    expect(init.status).toBe(0);
    expect(init.stdout).toMatch(/^limits: \{ processes: 1024, memory: 4GiB, wallTime: 30m \}$/m);
    writeFileSync(join(dir, 'toolgate.yaml'), init.stdout);
    const print = spawnSync(
      process.execPath,
      [BIN, 'run', '--policy', join(dir, 'toolgate.yaml'), '--print', '--', 'true'],
      { cwd: dir, env, encoding: 'utf8' },
    );
    expect(print.stdout).toMatch(
      / -- \/usr\/bin\/prlimit --nproc=1024:1024 --data=4294967296:4294967296 -- \S*timeout --verbose --kill-after=5s 1800s true\n$/,
    );
    const work = spawnSync(
      process.execPath,
      [
        BIN,
        'run',
        '--policy',
        join(dir, 'toolgate.yaml'),
        '--',
        '/bin/sh',
        '-c',
        'ls / > /dev/null && echo ok',
      ],
      { cwd: dir, env, encoding: 'utf8' },
    );
    expect(work.stdout).toBe('ok\n');
    expect(work.status).toBe(0);
  });
});
