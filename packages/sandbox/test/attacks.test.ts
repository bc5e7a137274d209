import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPolicy } from '@toolgate/folder-rules';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bwrapArgs, compileMounts, probeSandbox } from '../src/index.js';

// Real bubblewrap, real files and links in a temp dir: each test is an attack a script inside the sandbox
// tries, and what the kernel answers.
let root: string;
let ws: string;
let home: string;
let prefix: string[];

beforeAll(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-sandbox-')));
  ws = join(root, 'ws');
  home = join(root, 'home');
  mkdirSync(join(ws, 'src', 'deep'), { recursive: true });
  mkdirSync(join(home, '.ssh'), { recursive: true });
  mkdirSync(join(root, 'outside'), { recursive: true });
  mkdirSync(join(root, 'elsewhere'), { recursive: true });
  mkdirSync(join(root, 'etc'), { recursive: true });
  writeFileSync(join(root, 'etc', 'shadow'), 'CANARY-SHADOW');
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'CANARY-SSH');
  writeFileSync(join(ws, '.env'), 'CANARY-ENV-TOP');
  writeFileSync(join(ws, 'src', 'deep', '.ENV'), 'CANARY-ENV-DEEP');
  writeFileSync(join(root, 'outside', 'canary'), 'CANARY-OUTSIDE');
  writeFileSync(join(root, 'elsewhere', 'notes'), 'readable');
  writeFileSync(join(ws, 'README'), 'read me');
  mkdirSync(join(ws, 'docs'));
  writeFileSync(join(ws, 'docs', 'guide'), 'frozen');
  symlinkSync(join(root, 'outside'), join(ws, 'out-link'));
  symlinkSync(join(root, 'elsewhere'), join(ws, 'else-link'));
  symlinkSync(join(root, 'etc', 'shadow'), join(ws, 'shadow-link'));
  const policyFile = join(root, 'policy.yaml');
  writeFileSync(
    policyFile,
    [
      'default: read',
      'rules:',
      '  - { pattern: "<workspace>/**", access: write }',
      '  - { pattern: "<workspace>/docs/**", access: read }',
      '  - { pattern: "~/.ssh/**", access: deny }',
      '  - { pattern: "**/.env", access: deny }',
      `  - { pattern: "${root}/outside/**", access: deny }`,
      `  - { pattern: "${root}/etc/shadow", access: deny }`,
      '',
    ].join('\n'),
  );
  const policy = loadPolicy({ dialect: 'toolgate', file: policyFile });
  const plan = compileMounts(policy, { cwd: ws, workspace: ws, home, env: { HOME: home } });
  prefix = ['bwrap', ...bwrapArgs(plan)];
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function inside(script: string) {
  const [bin, ...args] = prefix;
  const r = spawnSync(bin!, [...args, '/bin/sh', '-c', script], {
    encoding: 'utf8',
    cwd: ws,
    env: { ...process.env, HOME: home },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('bubblewrap on this machine', () => {
  it('is available (CI installs it: .ci/run, scripts/ensure-test-tools.sh)', () => {
    expect(probeSandbox()).toEqual({ ok: true, bwrap: 'bwrap' });
  });
});

describe('a script inside the sandbox cannot', () => {
  it.each([
    ['an /etc/shadow-like canary', () => join(root, 'etc', 'shadow'), 'CANARY-SHADOW'],
    ['~/.ssh/id_rsa', () => join(home, '.ssh', 'id_rsa'), 'CANARY-SSH'],
    ['a .env at the workspace root', () => join(ws, '.env'), 'CANARY-ENV-TOP'],
    [
      'a .ENV deep in the tree (deny globs match case-insensitively)',
      () => join(ws, 'src/deep/.ENV'),
      'CANARY-ENV-DEEP',
    ],
    ['a file in a denied directory', () => join(root, 'outside', 'canary'), 'CANARY-OUTSIDE'],
  ])('read %s', (_what, path, canary) => {
    const r = inside(`python3 -c 'import sys; print(open(sys.argv[1]).read())' ${path()}`);
    expect(r.code).not.toBe(0);
    expect(r.out).not.toContain(canary);
  });

  it('list a denied directory (it is an empty mask)', () => {
    const r = inside(`ls -A ${join(home, '.ssh')}`);
    expect(r.out.trim()).toBe('');
  });

  it('write ~/.ssh/authorized_keys', () => {
    const r = inside('echo ssh-ed25519 AAAA attacker >> ~/.ssh/authorized_keys');
    expect(r.code).not.toBe(0);
    expect(existsSync(join(home, '.ssh', 'authorized_keys'))).toBe(false);
  });

  it('write outside the workspace', () => {
    const r = inside(`echo x > ${join(root, 'elsewhere', 'dropped')}; echo x > ${join(home, '.bashrc')}`);
    expect(r.code).not.toBe(0);
    expect(existsSync(join(root, 'elsewhere', 'dropped'))).toBe(false);
    expect(existsSync(join(home, '.bashrc'))).toBe(false);
  });

  it('write a read-tier directory inside the writable workspace', () => {
    const r = inside('echo changed > docs/guide');
    expect(r.code).not.toBe(0);
    expect(inside('cat docs/guide').out).toBe('frozen');
  });

  it('follow a symlink out of the workspace to read a denied file or directory', () => {
    expect(inside('cat out-link/canary').out).not.toContain('CANARY-OUTSIDE');
    expect(inside('cat shadow-link').out).not.toContain('CANARY-SHADOW');
  });

  it('follow a symlink out of the workspace to write', () => {
    const r = inside('echo x > else-link/dropped');
    expect(r.code).not.toBe(0);
    expect(existsSync(join(root, 'elsewhere', 'dropped'))).toBe(false);
  });

  it('create a new link out and write through it', () => {
    const r = inside(`ln -s ${join(root, 'elsewhere')} made-link && echo x > made-link/dropped2`);
    expect(r.code).not.toBe(0);
    expect(existsSync(join(root, 'elsewhere', 'dropped2'))).toBe(false);
  });

  it('delete or replace a masked file (a mount point cannot be unlinked)', () => {
    const r = inside('rm -f .env; mv .env moved; echo new > .env');
    expect(r.code).not.toBe(0);
    expect(existsSync(join(ws, '.env'))).toBe(true);
  });

  it('unmount a mask or create a user namespace to regain the right to', () => {
    expect(inside(`umount ${join(home, '.ssh')}`).code).not.toBe(0);
    expect(inside('unshare -Ur true').code).not.toBe(0);
    expect(inside(`cat ${join(home, '.ssh', 'id_rsa')}`).out).not.toContain('CANARY-SSH');
  });

  it('see or signal processes outside the sandbox', () => {
    const r = inside(`kill -0 ${process.pid}`);
    expect(r.code).not.toBe(0);
  });
});

describe('inside the sandbox a script can', () => {
  it('read what the policy lets it read and write the workspace', () => {
    const r = inside(
      `cat README ${join(root, 'elsewhere', 'notes')} && mkdir -p build && echo ok > build/out`,
    );
    expect(r.code).toBe(0);
    expect(r.out).toBe('read mereadable');
    expect(existsSync(join(ws, 'build', 'out'))).toBe(true);
  });
});
