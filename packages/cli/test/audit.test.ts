import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { auditLog } from '@toolgate/audit-log';
import { type CallContext, createGuard, type GuardPlugin, isWithin } from '@toolgate/core';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { type AuditIo, registerAudit, runTail } from '../src/commands/audit.js';

const denyOutside: GuardPlugin = {
  name: 'deny-outside',
  policy: true,
  apply(hooks) {
    hooks.collectAccesses.tap('x', (a, call, state) => [
      ...a,
      state.access(String(call.args.path), call.tool.startsWith('read') ? 'read' : 'write', {
        origin: 'args.path',
      }),
    ]);
    hooks.beforeToolCall.tap('x', (_c, state) => {
      const a = state.accesses[0]!;
      return a.realPath !== null && isWithin(a.realPath, state.ctx.workspace)
        ? undefined
        : { action: 'deny', code: 'PATH_DENIED', reason: 'path outside allowed scope', access: a };
    });
  },
};

function io(env: NodeJS.ProcessEnv = {}): AuditIo & { text: () => string } {
  let text = '';
  const out = new Writable({
    write(chunk, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  return { out, env, text: () => text };
}

async function run(args: string[], sink: AuditIo): Promise<number> {
  const program = new Command('toolgate').exitOverride();
  registerAudit(program, sink);
  process.exitCode = undefined;
  await program.parseAsync(args, { from: 'user' });
  const code = process.exitCode ?? 0;
  process.exitCode = undefined;
  return code;
}

async function trail(maxSize = 10 * 1024 * 1024) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-cli-audit-')));
  const file = join(root, 'violations.log');
  const audit = auditLog({ file, level: 'all', maxSize });
  const guard = createGuard({ plugins: [denyOutside, audit] });
  const ctx = (agentId: string): CallContext => ({
    sessionId: `s-${agentId}`,
    agentId,
    cwd: root,
    workspace: root,
    home: root,
    env: {},
  });
  return { root, file, audit, guard, ctx };
}

describe('toolgate audit', () => {
  it('query filters and prints human lines or JSON; stats counts; --file or $TOOLGATE_AUDIT_FILE', async () => {
    const t = await trail();
    await t.guard.check({ tool: 'write_file', args: { path: '/etc/passwd' } }, t.ctx('bot-a'));
    await t.guard.check({ tool: 'read_file', args: { path: '/var/log/x' } }, t.ctx('bot-b'));
    await t.guard.check({ tool: 'write_file', args: { path: join(t.root, 'ok') } }, t.ctx('bot-b'));
    const a = io();
    expect(await run(['audit', 'query', '--file', t.file, '--agent', 'bot-a', '--no-color'], a)).toBe(0);
    expect(a.text()).toMatch(
      /CRITICAL +deny +bot-a\/s-bot-a write_file write \/etc\/passwd PATH_DENIED: path outside allowed scope/,
    );
    expect(a.text().trim().split('\n')).toHaveLength(1);
    const j = io({ TOOLGATE_AUDIT_FILE: t.file });
    await run(['audit', 'query', '--severity', 'high,critical', '--json'], j);
    expect(
      j
        .text()
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { severity: string }).severity),
    ).toEqual(['critical', 'high']);
    const all = io();
    await run(['audit', 'query', '--file', t.file, '--all', '--decision', 'allow', '--json'], all);
    expect(all.text().trim().split('\n')).toHaveLength(1);
    const s = io();
    await run(['audit', 'stats', '--file', t.file, '--json', '--since', '1h'], s);
    expect(JSON.parse(s.text())).toMatchObject({
      total: 3,
      byDecision: { deny: 2, allow: 1 },
      byAgent: { 'bot-a': 1, 'bot-b': 2 },
    });
    const h = io();
    await run(['audit', 'stats', '--file', t.file], h);
    expect(h.text()).toMatch(/total: 3\nby severity:\n {2}critical +1/);
  });

  it('colors only on a terminal or with FORCE_COLOR, never with NO_COLOR', async () => {
    const t = await trail();
    await t.guard.check({ tool: 'write_file', args: { path: '/etc/passwd' } }, t.ctx('a'));
    const forced = io({ FORCE_COLOR: '1' });
    await run(['audit', 'query', '--file', t.file], forced);
    expect(forced.text()).toContain('\x1b[1;31mCRITICAL');
    const off = io({ FORCE_COLOR: '1', NO_COLOR: '1' });
    await run(['audit', 'query', '--file', t.file], off);
    expect(off.text()).not.toContain('\x1b[');
  });

  it('bad flags are usage errors naming the flag and value', async () => {
    const sink = io();
    await expect(run(['audit', 'query', '--file', '/nope', '--severity', 'severe'], sink)).rejects.toThrow(
      /--severity must be among .*"severe"/,
    );
    await expect(run(['audit', 'query', '--file', '/nope', '--since', 'last tuesday'], sink)).rejects.toThrow(
      /--since must be an ISO time .*"last tuesday"/,
    );
    await expect(run(['audit', 'query', '--file', '/nope', '--limit', '0'], sink)).rejects.toThrow(
      /--limit must be a positive integer/,
    );
    await expect(run(['audit', 'query', '--file', '/nope', '--decision', 'maybe'], sink)).rejects.toThrow(
      /--decision must be one of/,
    );
  });

  it('verify exits 0 on an intact trail and 1 naming the first broken link', async () => {
    const t = await trail();
    for (let i = 0; i < 3; i++)
      await t.guard.check({ tool: 'write_file', args: { path: `/etc/${i}` } }, t.ctx('a'));
    const ok = io();
    expect(await run(['audit', 'verify', '--file', t.file], ok)).toBe(0);
    expect(ok.text()).toMatch(/^ok: 3 records in 1 file\(s\), from the first record/);
    const lines = readFileSync(t.file, 'utf8').split('\n');
    lines[1] = lines[1]!.replace('/etc/1', '/etc/X');
    writeFileSync(t.file, lines.join('\n'));
    const bad = io();
    expect(await run(['audit', 'verify', '--file', t.file], bad)).toBe(1);
    expect(bad.text()).toContain(`BROKEN at ${t.file}:2: the record does not match its hash (edited)`);
  });

  it('tail -n shows the last records; tail -f follows new ones across a rotation', async () => {
    const t = await trail(4096);
    for (let i = 0; i < 3; i++)
      await t.guard.check({ tool: 'write_file', args: { path: `/etc/old-${i}` } }, t.ctx('a'));
    const last = io();
    await run(['audit', 'tail', '--file', t.file, '-n', '2', '--no-color'], last);
    expect(last.text()).not.toContain('/etc/old-0');
    expect(last.text()).toContain('/etc/old-1');
    expect(last.text()).toContain('/etc/old-2');

    const sink = io();
    const stop = new AbortController();
    const done = runTail(
      { file: t.file, lines: '0', follow: true, interval: '20', json: true },
      sink,
      stop.signal,
    );
    const rotationsBefore = t.audit.counters.rotations;
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      ids.push((await t.guard.check({ tool: 'write_file', args: { path: `/etc/new-${i}` } }, t.ctx('a'))).id);
      await new Promise((r) => setTimeout(r, 15));
    }
    await new Promise((r) => setTimeout(r, 100));
    stop.abort();
    expect(await done).toBe(0);
    expect(t.audit.counters.rotations).toBeGreaterThan(rotationsBefore);
    const seen = sink
      .text()
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { decisionId: string }).decisionId);
    expect(seen).toEqual(ids);
  });
});

// The built binary, as users run it (the root `test` script builds first): registration, exit codes, signals.
const bin = fileURLToPath(new URL('../bin/toolgate.cjs', import.meta.url));

describe('toolgate audit through the built binary', () => {
  it('verify exits 0 / 1, a bad flag exits 2 with the flag named', async () => {
    const t = await trail();
    await t.guard.check({ tool: 'write_file', args: { path: '/etc/passwd' } }, t.ctx('a'));
    const ok = spawnSync(process.execPath, [bin, 'audit', 'verify', '--file', t.file], { encoding: 'utf8' });
    expect([ok.status, ok.stdout]).toEqual([0, expect.stringMatching(/^ok: 1 records/)]);
    writeFileSync(t.file, readFileSync(t.file, 'utf8').replace('/etc/passwd', '/etc/hosts'));
    const bad = spawnSync(process.execPath, [bin, 'audit', 'verify', '--file', t.file], { encoding: 'utf8' });
    expect(bad.status).toBe(1);
    expect(bad.stdout).toMatch(/BROKEN at .*violations\.log:1: the record does not match its hash/);
    const usage = spawnSync(
      process.execPath,
      [bin, 'audit', 'query', '--file', t.file, '--severity', 'urgent'],
      {
        encoding: 'utf8',
      },
    );
    expect(usage.status).toBe(2);
    expect(usage.stderr).toMatch(/--severity must be among critical, high, medium, low, got "urgent"/);
  });

  it('tail -f prints records as another process writes them, and ends cleanly on SIGTERM', async () => {
    const t = await trail();
    const child = spawn(
      process.execPath,
      [bin, 'audit', 'tail', '-f', '--file', t.file, '--interval', '20'],
      {
        env: { ...process.env, NO_COLOR: '1' },
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    await new Promise((r) => setTimeout(r, 300)); // let it start and reach the end of the (empty) trail
    await t.guard.check({ tool: 'write_file', args: { path: '/etc/shadow' } }, t.ctx('tailer'));
    for (let i = 0; i < 200 && !out.includes('/etc/shadow'); i++) await new Promise((r) => setTimeout(r, 25));
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    expect(code).toBe(0);
    expect(out).toMatch(/CRITICAL +deny +tailer\/s-tailer write_file write \/etc\/shadow PATH_DENIED/);
    expect(out).not.toContain('\x1b[');
  });
});
