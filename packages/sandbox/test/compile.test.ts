import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPolicy } from '@toolgate/folder-rules';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileMounts, SandboxCompileError, sandbox, shellJoin } from '../src/index.js';

let root: string;
let ws: string;
let home: string;
let policyFile: string;
const ctx = () => ({ cwd: ws, workspace: ws, home, env: { HOME: home } });

beforeAll(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-sandbox-compile-')));
  ws = join(root, 'ws');
  home = join(root, 'home');
  for (let i = 0; i < 30; i++) mkdirSync(join(ws, `d${i}`), { recursive: true });
  writeFileSync(join(ws, 'd7', '.env'), 'x');
  mkdirSync(join(ws, 'secrets'));
  writeFileSync(join(ws, 'secrets', 'token'), 't');
  mkdirSync(home, { recursive: true });
  policyFile = join(root, 'policy.yaml');
  writeFileSync(
    policyFile,
    [
      'sandbox: uncertain',
      'default: deny',
      'rules:',
      '  - { pattern: "<workspace>/**", access: write }',
      '  - { pattern: "<workspace>/secrets/**", access: prompt }',
      '  - { pattern: "**/.env", access: deny }',
      '',
    ].join('\n'),
  );
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('compileMounts', () => {
  it('masks every glob match that exists, prompt-tier paths unless approved, and keeps a default-deny policy to the system floor', () => {
    const policy = loadPolicy({ dialect: 'toolgate', file: policyFile });
    const plan = compileMounts(policy, ctx());
    expect(plan.base).toBe('floor');
    expect(plan.writableRoot).toBe(false);
    expect(plan.ops.map((o) => [o.kind, o.path])).toEqual([
      ['rw', ws],
      // Pinned (bound onto itself): `mv d7 d7.old && mkdir d7` cannot carry the mask away (EBUSY).
      ['rw', join(ws, 'd7')],
      ['mask-dir', join(ws, 'secrets')],
      ['mask-file', join(ws, 'd7', '.env')],
    ]);
    const approved = compileMounts(policy, ctx(), {
      approved: [
        {
          op: 'read',
          scope: 'subtree',
          raw: 'secrets',
          path: join(ws, 'secrets'),
          realPath: join(ws, 'secrets'),
          origin: 'test',
          certain: true,
        },
      ],
    });
    // Approved for reading only: visible, but read-only inside the writable workspace.
    expect(approved.ops.find((o) => o.path === join(ws, 'secrets'))?.kind).toBe('ro');
  });

  it('keeps readOnly paths read-only inside a writable root, beneath it too; a mask still wins', () => {
    const policy = loadPolicy({ dialect: 'toolgate', file: policyFile });
    mkdirSync(join(ws, 'cache', 'deep'), { recursive: true });
    writeFileSync(join(ws, 'cache', 'deep', '.env'), 'x');
    const plan = compileMounts(policy, ctx(), {
      readOnly: [join(ws, 'cache'), join(ws, 'secrets'), join(root, 'missing')],
      approved: [
        {
          op: 'write',
          scope: 'subtree',
          raw: 'cache/deep',
          path: join(ws, 'cache', 'deep'),
          realPath: join(ws, 'cache', 'deep'),
          origin: 'test',
          certain: true,
        },
      ],
    });
    const kinds = Object.fromEntries(plan.ops.map((o) => [o.path, o.kind]));
    expect(kinds[ws]).toBe('rw');
    expect(kinds[join(ws, 'cache')]).toBe('ro');
    expect(kinds[join(ws, 'cache', 'deep')]).toBeUndefined(); // approved for writing, still read-only
    expect(kinds[join(ws, 'cache', 'deep', '.env')]).toBe('mask-file');
    expect(kinds[join(ws, 'secrets')]).toBe('mask-dir');
    expect(kinds[join(root, 'missing')]).toBeUndefined();
    expect(() => sandbox({ policy, readOnly: ['relative/dir'] })).toThrow(/option readOnly must be/);
  });

  it('finds glob matches in dot directories and any depth (globstar), and only where a narrower glob can match', () => {
    const dir = join(root, 'globs');
    const file = join(dir, 'policy.yaml');
    for (const d of ['.git/hooks', 'a/.cache/b/c', 'logs/2024/x', 'other/logs'])
      mkdirSync(join(dir, 'ws', d), { recursive: true });
    for (const f of ['.git/hooks/.ENV', 'a/.cache/b/c/.env', 'logs/2024/x/secret.key', 'other/logs/k.key'])
      writeFileSync(join(dir, 'ws', f), 'x');
    writeFileSync(
      file,
      [
        'default: read',
        'rules:',
        '  - { pattern: "<workspace>/**", access: write }',
        '  - { pattern: "**/.env", access: deny }',
        '  - { pattern: "<workspace>/logs/*/x/*.key", access: deny }',
        '',
      ].join('\n'),
    );
    const w = join(dir, 'ws');
    const plan = compileMounts(loadPolicy({ dialect: 'toolgate', file }), {
      cwd: w,
      workspace: w,
      home,
      env: { HOME: home },
    });
    const masked = plan.ops.filter((o) => o.kind === 'mask-file').map((o) => o.path);
    // A deny glob matches without case (as the static check judges it); `*` stops at one directory.
    expect(masked.sort()).toEqual(
      [join(w, '.git/hooks/.ENV'), join(w, 'a/.cache/b/c/.env'), join(w, 'logs/2024/x/secret.key')].sort(),
    );
  });

  it('refuses (fail closed) when the search for glob matches exceeds its bound', () => {
    const policy = loadPolicy({ dialect: 'toolgate', file: policyFile });
    expect(() => compileMounts(policy, ctx(), { walk: { maxEntries: 5 } })).toThrow(SandboxCompileError);
  });
});

describe('sandbox()', () => {
  it('reads the policy switch and rewrites a command into bwrap … -- /bin/bash -c', () => {
    const policy = loadPolicy({ dialect: 'toolgate', file: policyFile });
    const box = sandbox({ policy });
    expect(box.mode).toBe('uncertain');
    const r = box.rewrite(
      { tool: 'Bash', args: { command: "echo 'a b'", timeout: 5 } },
      { ...ctx(), sessionId: 's', agentId: 'a' },
      [],
    );
    if ('unavailable' in r) throw new Error(r.unavailable);
    expect(r.argv[0]).toBe('bwrap');
    expect(r.argv.slice(-3)).toEqual(['/bin/bash', '-c', "echo 'a b'"]);
    expect(r.command).toBe(shellJoin(r.argv));
    expect(r.args).toEqual({ command: r.command, timeout: 5 });
  });

  it('quotes the original command so the sandboxed shell runs exactly it (quotes, $, newlines, globs)', () => {
    const policy = loadPolicy({ dialect: 'toolgate', file: policyFile });
    const command = `printf '%s|' "it's" '$HOME' "\\$(x)" '*' \`echo b\`\necho "a'b"`;
    const direct = spawnSync('/bin/bash', ['-c', command], { cwd: ws, encoding: 'utf8' });
    const r = sandbox({ policy }).rewrite(
      { tool: 'Bash', args: { command } },
      { ...ctx(), sessionId: 's', agentId: 'a' },
      [],
    );
    if ('unavailable' in r) throw new Error(r.unavailable);
    const wrapped = spawnSync('/bin/bash', ['-c', r.command], { cwd: ws, encoding: 'utf8' });
    expect(wrapped.stderr).toBe('');
    expect(wrapped.stdout).toBe(direct.stdout);
    expect(direct.stdout).toBe("it's|$HOME|$(x)|*|b|a'b\n");
  });

  it('answers unavailable, with the reason, when bubblewrap is missing or the policy cannot be compiled', () => {
    const policy = loadPolicy({ dialect: 'toolgate', file: policyFile });
    const full = { ...ctx(), sessionId: 's', agentId: 'a' };
    const missing = sandbox({ policy, bwrap: join(root, 'no-such-bwrap') }).rewrite(
      { tool: 'Bash', args: { command: 'true' } },
      full,
      [],
    );
    expect(missing).toEqual({ unavailable: expect.stringContaining('bubblewrap is not installed') });
    const bounded = sandbox({ policy, walk: { maxEntries: 5 } }).rewrite(
      { tool: 'Bash', args: { command: 'true' } },
      full,
      [],
    );
    expect(bounded).toEqual({ unavailable: expect.stringContaining('exceeded 5 entries') });
    const noCommand = sandbox({ policy }).rewrite({ tool: 'Bash', args: { script: 'true' } }, full, []);
    expect(noCommand).toEqual({ unavailable: expect.stringContaining('no command argument') });
  });

  it('rejects bad options with a clear error', () => {
    expect(() => sandbox({ policy: {} as never })).toThrow(/option policy/);
    const policy = loadPolicy({ dialect: 'toolgate', file: policyFile });
    expect(() => sandbox({ policy, mode: 'sometimes' as never })).toThrow(/option mode/);
  });

  it('a narrowOnly overlay may turn the sandbox off or from uncertain to always, never on; bad values fail at load', () => {
    const off = join(root, 'off.yaml');
    writeFileSync(off, 'default: read\n');
    const overlay = (name: string, text: string) => {
      const file = join(root, name);
      writeFileSync(file, text);
      return file;
    };
    const on = overlay('on.yaml', 'narrowOnly: true\nsandbox: uncertain\n');
    expect(() => loadPolicy({ dialect: 'toolgate', file: off, overlays: [on] })).toThrow(
      /on\.yaml.*sandbox.*uncertain/,
    );
    const plain = overlay('plain.yaml', 'sandbox: uncertain\n');
    expect(() => loadPolicy({ dialect: 'toolgate', file: off, overlays: [plain], narrowOnly: true })).toThrow(
      /sandbox/,
    );
    const always = overlay('always.yaml', 'narrowOnly: true\nsandbox: always\n');
    const tightened = loadPolicy({ dialect: 'toolgate', file: policyFile, overlays: [always] });
    expect(tightened.extras.sandbox).toBe('always');
    const down = overlay('down.yaml', 'narrowOnly: true\nsandbox: off\n');
    expect(loadPolicy({ dialect: 'toolgate', file: policyFile, overlays: [down] }).extras.sandbox).toBe(
      'off',
    );
    const bad = overlay('bad.yaml', 'sandbox: sometimes\n');
    expect(() => loadPolicy({ dialect: 'toolgate', file: bad })).toThrow(/bad\.yaml.*sandbox.*sometimes/);
  });
});
