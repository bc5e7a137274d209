import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditLog } from '@toolgate/audit-log';
import { type CallContext, createGuard, type GuardPlugin, Stage } from '@toolgate/core';
import { folderRules, loadPolicy } from '@toolgate/folder-rules';
import { shell } from '@toolgate/shell';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox } from '../src/index.js';

// The API: a guard with `sandbox` rewrites what analysis cannot prove into a command the host runs.
let root: string;
let ws: string;
let home: string;
let ctx: CallContext;
let policyFile: string;

beforeAll(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-sandbox-guard-')));
  ws = join(root, 'ws');
  home = join(root, 'home');
  mkdirSync(ws, { recursive: true });
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'CANARY-SSH');
  writeFileSync(join(ws, 'in.txt'), 'input');
  mkdirSync(join(ws, 'secrets'));
  mkdirSync(join(ws, 'sub'));
  writeFileSync(join(ws, 'secrets', 'a'), 'SECRET-A');
  policyFile = join(root, 'policy.yaml');
  writeFileSync(
    policyFile,
    [
      'sandbox: uncertain',
      'default: read',
      'rules:',
      '  - { pattern: "<workspace>/**", access: write }',
      '  - { pattern: "~/.ssh/**", access: deny }',
      '  - { pattern: "<workspace>/secrets/**", access: prompt }',
      '',
    ].join('\n'),
  );
  ctx = { sessionId: 's', agentId: 'a', cwd: ws, workspace: ws, home, env: { HOME: home } };
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function guardWith(options: { bwrap?: string; mode?: 'off' | 'uncertain' | 'always'; audit?: string } = {}) {
  const policy = loadPolicy({ dialect: 'toolgate', file: policyFile });
  return createGuard({
    plugins: [
      shell(),
      folderRules({ policy }),
      ...(options.audit ? [auditLog({ file: options.audit })] : []),
    ],
    sandbox: sandbox({
      policy,
      ...(options.bwrap ? { bwrap: options.bwrap } : {}),
      ...(options.mode ? { mode: options.mode } : {}),
    }),
  });
}

const UNCERTAIN = { tool: 'Bash', args: { command: 'cat "$SRC" > out.txt; cat "$KEY"' } };

describe('createGuard({sandbox})', () => {
  it('allows an uncertain shell call as a sandboxed one: decision, envelope and audit record say so', async () => {
    const audit = join(root, 'audit.log');
    const d = await guardWith({ audit }).check(UNCERTAIN, ctx);
    expect(d.action).toBe('allow');
    expect(d.sandboxed?.mode).toBe('uncertain');
    expect(d.sandboxed?.uncertain.map((f) => f.code)).toEqual(['PATH_UNCERTAIN', 'PATH_UNCERTAIN']);
    expect(d.sandboxed?.argv[0]).toBe('bwrap');
    expect(d.envelope).toMatchObject({ code: 'SANDBOXED', sandboxed: true });
    const record = JSON.parse(readFileSync(audit, 'utf8').trim().split('\n').at(-1)!);
    expect(record.sandboxed.mode).toBe('uncertain');
  });

  it('guard.wrap runs the rewritten command: the work is done, the denied read is refused by the kernel', async () => {
    const run = guardWith().wrap('Bash', (args: { command: string }) =>
      spawnSync('/bin/bash', ['-c', args.command], {
        cwd: ws,
        encoding: 'utf8',
        env: { ...process.env, HOME: home, SRC: join(ws, 'in.txt'), KEY: join(home, '.ssh', 'id_rsa') },
      }),
    );
    const r = (await run(UNCERTAIN.args, ctx)) as { stdout: string; stderr: string; status: number };
    expect(readFileSync(join(ws, 'out.txt'), 'utf8')).toBe('input');
    expect(r.stdout).not.toContain('CANARY');
    expect(r.status).not.toBe(0);
  });

  it('keeps a static deny in the same call denied', async () => {
    const d = await guardWith().check(
      { tool: 'Bash', args: { command: 'cat "$SRC"; cat ~/.ssh/id_rsa' } },
      ctx,
    );
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.code).toBe('PATH_DENIED');
    expect(d.sandboxed).toBeUndefined();
  });

  it('with mode off, denies what it cannot prove as before', async () => {
    const d = await guardWith({ mode: 'off' }).check(UNCERTAIN, ctx);
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.code).toBe('PATH_UNCERTAIN');
  });

  it('with mode always, sandboxes a provable shell call too, but not a file tool', async () => {
    const g = guardWith({ mode: 'always' });
    const shellCall = await g.check({ tool: 'Bash', args: { command: 'cat in.txt' } }, ctx);
    expect(shellCall.sandboxed?.uncertain).toEqual([]);
    const fileCall = await g.check({ tool: 'read_file', args: { path: 'in.txt' } }, ctx);
    expect(fileCall.action).toBe('allow');
    expect(fileCall.sandboxed).toBeUndefined();
  });

  it('falls back to deny with SANDBOX_UNAVAILABLE when bubblewrap is missing, and never runs the call', async () => {
    let ran = false;
    const g = guardWith({ bwrap: join(root, 'missing', 'bwrap') });
    const d = await g.check(UNCERTAIN, ctx);
    expect(d.action).toBe('deny');
    expect(d.envelope?.code).toBe('SANDBOX_UNAVAILABLE');
    expect(d.envelope?.error).toMatch(/bubblewrap is not installed/);
    const out = await g.wrap('Bash', () => {
      ran = true;
    })(UNCERTAIN.args, ctx);
    expect(ran).toBe(false);
    expect(out).toMatchObject({ code: 'SANDBOX_UNAVAILABLE' });
  });

  it('a prompt-tier path is approved with the rewritten call: visible inside only then', async () => {
    const g = guardWith();
    const call = { tool: 'Bash', args: { command: 'cat secrets/a "$SRC"' } };
    const asked = await g.check(call, ctx, { resolvePrompts: false });
    expect(asked.action).toBe('prompt'); // the host asks about the wrapped command
    expect(asked.reasons[0]?.code).toBe('PATH_PROMPT');
    const argv = asked.sandboxed?.argv ?? [];
    // Exactly the approved file is visible (read-only) inside the masked directory.
    const file = join(ws, 'secrets', 'a');
    expect(argv.join(' ')).toContain(`--ro-bind ${file} ${file}`);
    const seen = spawnSync(argv[0]!, [...argv.slice(1, -3), 'cat', 'secrets/a'], {
      cwd: ws,
      encoding: 'utf8',
    });
    expect(seen.stdout).toBe('SECRET-A');
    // Unapproved (a provable call that never asked), the same path is masked.
    const always = guardWith({ mode: 'always' });
    const other = await always.check({ tool: 'Bash', args: { command: 'cat in.txt' } }, ctx);
    const masked = other.sandboxed?.argv ?? [];
    const r = spawnSync(masked[0]!, [...masked.slice(1, -3), 'cat', 'secrets/a'], {
      cwd: ws,
      encoding: 'utf8',
    });
    expect(r.stdout).not.toContain('SECRET-A');
  });

  it('the rewritten command runs where the host starts it (no --chdir): a tool with its own directory keeps it', async () => {
    const d = await guardWith().check({ tool: 'Bash', args: { command: 'pwd; cat "$SRC"' } }, ctx);
    const r = spawnSync('/bin/bash', ['-c', String(d.sandboxed?.args.command)], {
      cwd: join(ws, 'sub'),
      encoding: 'utf8',
      env: { ...process.env, SRC: join(ws, 'in.txt') },
    });
    expect(r.stdout).toBe(`${join(ws, 'sub')}\ninput`);
  });

  it('a subtree judged by its worst case is sandboxed, unless another policy denies it statically', async () => {
    const file = join(root, 'env-policy.yaml');
    writeFileSync(
      file,
      'sandbox: uncertain\ndefault: read\nrules:\n  - { pattern: "<workspace>/**", access: write }\n  - { pattern: "**/.env", access: deny }\n',
    );
    const policy = loadPolicy({ dialect: 'toolgate', file });
    const strict: GuardPlugin = {
      name: 'no-recursive-reads',
      policy: true,
      apply(hooks) {
        hooks.beforeToolCall.tap({ stage: Stage.POLICY }, (_call, state) => {
          const access = state.accesses.find((a) => a.scope === 'subtree');
          return access
            ? { action: 'deny', code: 'PATH_DENIED', reason: 'no recursive reads here', access }
            : undefined;
        });
      },
    };
    // A walk bound of 1 entry: `grep -r` over the workspace cannot be walked ⇒ SUBTREE_UNBOUNDED.
    const make = (extra: GuardPlugin[]) =>
      createGuard({
        plugins: [shell(), folderRules({ policy, subtreeWalk: { maxEntries: 1 } }), ...extra],
        sandbox: sandbox({ policy }),
      });
    const call = { tool: 'Bash', args: { command: 'grep -r input .' } };
    const sandboxed = await make([]).check(call, ctx);
    expect(sandboxed.action).toBe('allow');
    expect(sandboxed.sandboxed?.uncertain.map((f) => f.code)).toEqual(['SUBTREE_UNBOUNDED']);
    const denied = await make([strict]).check(call, ctx);
    expect(denied.action).toBe('deny');
    expect(denied.reasons[0]?.reason).toBe('no recursive reads here');
  });
});
