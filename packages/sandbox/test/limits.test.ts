import { spawnSync } from 'node:child_process';
import {
  chmodSync,
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
import { auditLog } from '@toolgate/audit-log';
import { createGuard, sandboxNotice } from '@toolgate/core';
import { folderRules, loadPolicy } from '@toolgate/folder-rules';
import { shell } from '@toolgate/shell';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeLimits, limitsOf, probeSandbox, sandbox } from '../src/index.js';

// Issue 23, item 6: a sandboxed call had no limits (400 processes, unbounded memory, 64 MB into the host's
// shared /tmp). The policy's `limits:` — checked at load, enforced by the sandbox — tested by attack, each
// with a twin showing that ordinary work under the same limits still runs. Real bubblewrap, real processes.

let root: string;
let ws: string;
let home: string;
const haveBwrap = probeSandbox().ok;
const havePython = spawnSync('python3', ['-c', '0']).status === 0;

// Never skipped: a machine without the tools fails here (scripts/ensure-test-tools.sh installs them).
it('bubblewrap is installed', () => expect(haveBwrap).toBe(true));
it('python3 is installed', () => expect(havePython).toBe(true));
const isRoot = process.getuid?.() === 0;

beforeAll(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-limits-')));
  ws = join(root, 'ws');
  home = join(root, 'home');
  mkdirSync(ws, { recursive: true });
  mkdirSync(home, { recursive: true });
  // The fork-bomb case runs as an ordinary user when the tests run as root (see below): let it in.
  for (const dir of [root, ws, home]) chmodSync(dir, 0o777);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function policyFile(lines: string[], name = 'policy.yaml'): string {
  const file = join(root, name);
  writeFileSync(file, [...lines, ''].join('\n'));
  return file;
}

function load(limits: string) {
  return loadPolicy({
    dialect: 'toolgate',
    file: policyFile([
      'default: read',
      'rules:',
      '  - { pattern: "<workspace>/**", access: write }',
      '  - { pattern: "/tmp/**", access: write }',
      `limits: ${limits}`,
    ]),
  });
}

/** Runs `script` with sh in the sandbox of a policy with `limits`; `as` runs bubblewrap as another uid. */
function inside(limits: string, script: string, options: { as?: number; timeout?: number } = {}) {
  const box = sandbox({ policy: load(limits), mode: 'always' });
  const argv = [
    ...box.prefix({ cwd: ws, workspace: ws, home, env: { HOME: home } }),
    '/bin/sh',
    '-c',
    script,
  ];
  const run =
    options.as === undefined
      ? argv
      : ['setpriv', `--reuid=${options.as}`, `--regid=${options.as}`, '--clear-groups', ...argv];
  const started = Date.now();
  const r = spawnSync(run[0]!, run.slice(1), {
    encoding: 'utf8',
    cwd: ws,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home },
    timeout: options.timeout ?? 30_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr, ms: Date.now() - started };
}

describe('limits: checked when the policy loads (file, field, value)', () => {
  const bad: Array<[string, RegExp]> = [
    [
      '{ memory: 2 gigs }',
      /field limits\.memory: a size of at least 16MiB, like 2GiB or 512MiB, got "2 gigs"/,
    ],
    ['{ processes: 1 }', /field limits\.processes: a whole number of processes, at least 2, got 1/],
    ['{ processes: 2.5 }', /field limits\.processes: .*got 2\.5/],
    ['{ wallTime: forever }', /field limits\.wallTime: a duration like 10m, 90s or 1h .*got "forever"/],
    ['{ tmpSize: -1 }', /field limits\.tmpSize: a size like 512MiB or 1GiB, got -1/],
    ['{ cpu: 2 }', /field limits: .*cpu/i],
  ];
  it.each(bad)('%s is refused, naming the file', (limits, message) => {
    expect(() => load(limits)).toThrow(message);
    expect(() => load(limits)).toThrow(join(root, 'policy.yaml'));
  });

  it('twin: the documented forms load, normalised', () => {
    const policy = load('{ processes: 256, memory: 2GiB, wallTime: 10m, tmpSize: 512MiB }');
    expect(limitsOf(policy)).toEqual({
      processes: 256,
      memoryBytes: 2 * 1024 ** 3,
      wallTimeMs: 600_000,
      tmpSizeBytes: 512 * 1024 ** 2,
    });
    expect(describeLimits(limitsOf(policy)!)).toBe(
      'processes 256, memory 2GiB, wallTime 10m, tmpSize 512MiB',
    );
    expect(limitsOf(load('{ wallTime: 90, memory: 1073741824 }'))).toEqual({
      memoryBytes: 1024 ** 3,
      wallTimeMs: 90_000,
    });
  });

  it('an agent overlay sets limits field by field; a narrowOnly overlay cannot raise or drop one', () => {
    const file = policyFile(
      [
        'default: read',
        'limits: { processes: 256, wallTime: 10m }',
        'agents:',
        '  small: { limits: { processes: 64 } }',
      ],
      'agents.yaml',
    );
    expect(limitsOf(loadPolicy({ dialect: 'toolgate', file, agent: 'small' }))).toEqual({
      processes: 64,
      wallTimeMs: 600_000,
    });
    const base = policyFile(['default: read', 'limits: { processes: 256, wallTime: 10m }'], 'base.yaml');
    const wider = policyFile(['narrowOnly: true', 'limits: { wallTime: 1h }'], 'wider.yaml');
    expect(() => loadPolicy({ dialect: 'toolgate', file: base, overlays: [wider] })).toThrow(
      /wider\.yaml: field limits\.wallTime: a narrowOnly overlay cannot raise limits\.wallTime/,
    );
    const narrower = policyFile(['narrowOnly: true', 'limits: { wallTime: 1m }'], 'narrower.yaml');
    expect(limitsOf(loadPolicy({ dialect: 'toolgate', file: base, overlays: [narrower] }))).toEqual({
      processes: 256,
      wallTimeMs: 60_000,
    });
  });
});

describe('limits: enforced inside bubblewrap', () => {
  // RLIMIT_NPROC does not bind the kernel's root (kuid 0 is exempt even in a user namespace): as root, the
  // sandbox runs as nobody here, as an agent's sandbox runs as its user.
  const as = isRoot ? { as: 65534 } : {};
  // Starts 200 sleepers, saying how many so far (echo is a builtin: no fork). sh gives up at the first fork
  // the kernel refuses ("Cannot fork"); the sandbox's processes die with it.
  const BOMB = 'i=0; while [ $i -lt 200 ]; do sleep 5 & i=$((i+1)); echo "started $i"; done';
  const started = (out: string) => Number(/started (\d+)\n$/.exec(out)?.[1] ?? 0);

  it('a fork bomb is bounded by limits.processes', () => {
    const r = inside('{ processes: 32 }', BOMB, as);
    expect(r.err).toMatch(/fork/i);
    expect(started(r.out)).toBeGreaterThan(5);
    expect(started(r.out)).toBeLessThan(32);
  });

  it('twin: ten processes at once under the same limit run', () => {
    const r = inside(
      '{ processes: 32 }',
      'for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.3 & done; wait; echo "ten ran"',
      as,
    );
    expect(r.out).toContain('ten ran');
    expect(r.err).toBe('');
  });

  it('twin: the same bomb without a process limit starts all 200 (the bound above is the limit at work)', () => {
    const r = inside('{ wallTime: 1h }', BOMB, as);
    expect(started(r.out)).toBe(200);
  });

  it('a memory hog is stopped by limits.memory', () => {
    const r = inside(
      '{ memory: 128MiB }',
      'python3 -c "a = bytearray(512 * 1024 * 1024); print(\'allocated\')"',
    );
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('MemoryError');
    expect(r.out).not.toContain('allocated');
  });

  it('twin: 32 MiB under the same limit is allocated', () => {
    const r = inside(
      '{ memory: 128MiB }',
      'python3 -c "a = bytearray(32 * 1024 * 1024); print(\'allocated\')"',
    );
    expect(r.code).toBe(0);
    expect(r.out).toContain('allocated');
  });

  it('a sleep past limits.wallTime is ended at the deadline (exit 124, said on stderr)', () => {
    const r = inside('{ wallTime: 1s }', 'sleep 30');
    expect(r.code).toBe(124);
    expect(r.err).toMatch(/timeout: sending signal TERM/);
    expect(r.ms).toBeLessThan(10_000);
  });

  it('twin: a command that ends before the deadline exits as it did', () => {
    const r = inside('{ wallTime: 5s }', 'sleep 0.2; exit 7');
    expect(r.code).toBe(7);
    expect(r.err).toBe('');
  });

  it('64 MB into /tmp is refused by limits.tmpSize, and nothing reaches the host /tmp', () => {
    const name = `toolgate-limits-${process.pid}-big`;
    const r = inside('{ tmpSize: 8MiB }', `head -c 67108864 /dev/zero > /tmp/${name}; echo "exit $?"`);
    expect(r.out).toMatch(/exit [1-9]/);
    expect(r.err).toMatch(/No space left on device/);
    expect(existsSync(join('/tmp', name))).toBe(false);
  });

  it('64 MB into /dev/shm (writable in every sandbox) is refused by limits.tmpSize too', () => {
    const r = inside('{ tmpSize: 8MiB }', 'head -c 67108864 /dev/zero > /dev/shm/big; echo "exit $?"');
    expect(r.out).toMatch(/exit [1-9]/);
    expect(r.err).toMatch(/No space left on device/);
  });

  it('twin: shared memory under the limit works (a Python multiprocessing lock)', () => {
    const r = inside(
      '{ tmpSize: 8MiB }',
      'python3 -c "import multiprocessing as m; l = m.Lock(); l.acquire(); l.release(); print(\'shm ok\')"',
    );
    expect(r.out).toContain('shm ok');
  });

  it('twin: 1 MB into /tmp fits, and the workspace (beneath /tmp here) is not bounded by it', () => {
    const r = inside(
      '{ tmpSize: 8MiB }',
      'head -c 1048576 /dev/zero > /tmp/small && head -c 16777216 /dev/zero > big && wc -c < big',
    );
    expect(r.code).toBe(0);
    expect(r.out.trim()).toBe('16777216');
    expect(existsSync(join(ws, 'big'))).toBe(true);
  });
});

describe('limits: what the decision, the model and the audit are told', () => {
  it('a sandboxed call names the limits in force: decision, the notice for the model, the audit record', async () => {
    const file = policyFile(
      [
        'sandbox: uncertain',
        'default: read',
        'rules:',
        '  - { pattern: "<workspace>/**", access: write }',
        'limits: { processes: 256, memory: 2GiB, wallTime: 10m }',
      ],
      'guard.yaml',
    );
    const policy = loadPolicy({ dialect: 'toolgate', file });
    const audit = join(root, 'audit.log');
    const guard = createGuard({
      plugins: [shell(), folderRules({ policy }), auditLog({ file: audit })],
      sandbox: sandbox({ policy }),
    });
    const ctx = { sessionId: 's', agentId: 'a', cwd: ws, workspace: ws, home, env: { HOME: home } };
    const d = await guard.check({ tool: 'Bash', args: { command: 'python3 x.py' } }, ctx);
    expect(d.sandboxed?.limits).toBe('processes 256, memory 2GiB, wallTime 10m');
    expect(d.sandboxed?.command).toMatch(
      / -- \S*prlimit --nproc=256:256 --data=2147483648:2147483648 -- \S*timeout /,
    );
    expect(sandboxNotice(d)).toMatch(/policy limits: processes 256, memory 2GiB, wallTime 10m.*exit 124/);
    await guard.close?.();
    const record = JSON.parse(readFileSync(audit, 'utf8').trim().split('\n').at(-1)!);
    expect(record.sandboxed.limits).toBe('processes 256, memory 2GiB, wallTime 10m');
  });

  it('twin: without limits, none is named', async () => {
    const policy = loadPolicy({
      dialect: 'toolgate',
      file: policyFile(['sandbox: uncertain', 'default: read'], 'nolimits.yaml'),
    });
    const guard = createGuard({ plugins: [shell(), folderRules({ policy })], sandbox: sandbox({ policy }) });
    const ctx = { sessionId: 's', agentId: 'a', cwd: ws, workspace: ws, home, env: { HOME: home } };
    const d = await guard.check({ tool: 'Bash', args: { command: 'python3 x.py' } }, ctx);
    expect(d.sandboxed).toBeDefined();
    expect(d.sandboxed?.limits).toBeUndefined();
    expect(sandboxNotice(d)).not.toMatch(/limits/);
  });
});
