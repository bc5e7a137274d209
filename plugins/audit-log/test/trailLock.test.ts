import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createGuard, type GuardPlugin } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { type AuditErrorEvent, auditLog, readRecords, verifyChain } from '../src/index.js';
import { tempDir } from './helpers.js';

const writerChild = fileURLToPath(new URL('./fixtures/writerChild.ts', import.meta.url));

const denyAll: GuardPlugin = {
  name: 'deny-all',
  policy: true,
  apply(hooks) {
    hooks.beforeToolCall.tap('x', () => ({ action: 'deny', code: 'PATH_DENIED', reason: 'denied' }));
  },
};
const ctx = { sessionId: 's', agentId: 'a', cwd: '/tmp', workspace: '/tmp', home: '/tmp', env: {} };

/** The pid of a process that has exited (its lock is stale). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(r.stdout);
}

describe('the trail lock between processes', () => {
  it('a lock left by a process that died holding it (SIGKILL) is broken: records are written at once', async () => {
    const file = join(tempDir(), 'violations.log');
    writeFileSync(`${file}.lock`, `${deadPid()} deadbeefdeadbeef\n`);
    const audit = auditLog({ file, lockWaitMs: 5_000 });
    const guard = createGuard({ plugins: [denyAll, audit] });
    const started = Date.now();
    await guard.check({ tool: 'write_file', args: { path: '/etc/x' } }, ctx);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(audit.counters.written).toBe(1);
    audit.close();
    expect(existsSync(`${file}.lock`)).toBe(false);
    expect((await verifyChain(file)).records).toBe(1);
  });

  it('a lock held by a live process past lockWaitMs: the record is buffered and the failure reported, not lost', async () => {
    const file = join(tempDir(), 'violations.log');
    // pid 1 is alive (init): the lock is someone else's and live.
    writeFileSync(`${file}.lock`, '1 livelivelivelive\n');
    const audit = auditLog({ file, lockWaitMs: 50, retryMs: 20 });
    const guard = createGuard({ plugins: [denyAll, audit] });
    const errors: AuditErrorEvent[] = [];
    guard.events.on('audit-error', (e: AuditErrorEvent) => errors.push(e));
    const d = await guard.check({ tool: 'write_file', args: { path: '/etc/x' } }, ctx);
    expect(d.action).toBe('deny');
    expect(audit.counters.buffered).toBe(1);
    expect(audit.healthy).toBe(false);
    await new Promise((r) => setTimeout(r, 20));
    expect(errors[0]?.what).toBe('write');
    expect(String(errors[0]?.error)).toMatch(/held by another writer/);
    // The other writer lets go: the buffered record is written by the retry.
    unlinkSync(`${file}.lock`);
    for (let i = 0; i < 100 && audit.counters.buffered > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(audit.counters.buffered).toBe(0);
    expect(audit.healthy).toBe(true);
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(1);
    audit.close();
  });

  it('required: a trail that cannot be written denies every call with AUDIT_UNAVAILABLE until it recovers', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'plain-file'), '');
    const audit = auditLog({ file: join(dir, 'plain-file', 'violations.log'), required: true });
    const allowAll: GuardPlugin = { name: 'allow-all', policy: true, apply() {} };
    const guard = createGuard({ plugins: [allowAll, audit] });
    const d = await guard.check({ tool: 'read_file', args: { path: '/tmp/a' } }, ctx);
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.code).toBe('AUDIT_UNAVAILABLE');
    expect(d.envelope?.hint).toMatch(/audit trail/);
    audit.close();
  });

  it('a writer keeps the lock across event-loop turns while it writes, and lets it go once idle', async () => {
    const file = join(tempDir(), 'violations.log');
    const audit = auditLog({ file });
    const guard = createGuard({ plugins: [denyAll, audit] });
    const call = { tool: 'write_file', args: { path: '/etc/x' } };
    for (let i = 0; i < 20; i++) {
      await guard.check(call, ctx);
      await nextTurn();
      // Released at the end of every turn, this cost five syscalls and a re-read of the trail per record.
      expect(readFileSync(`${file}.lock`, 'utf8').startsWith(`${process.pid} `)).toBe(true);
    }
    for (let i = 0; i < 500 && existsSync(`${file}.lock`); i++) await new Promise((r) => setTimeout(r, 10));
    expect(existsSync(`${file}.lock`)).toBe(false);
    expect((await verifyChain(file)).records).toBe(20);
    audit.close();
  });

  it('a writer that keeps writing one record per turn lets a waiting process in: both chains of records are whole', async () => {
    const file = join(tempDir(), 'violations.log');
    const audit = auditLog({ file });
    const guard = createGuard({ plugins: [denyAll, audit] });
    const call = { tool: 'write_file', args: { path: '/etc/x' } };
    await guard.check(call, ctx);
    const go = `${file}.go`;
    writeFileSync(go, '');
    // The child waits for the lock (lockWaitMs 2000 by default) and reports on stderr if it cannot get it.
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--conditions=source', writerChild, file, '5', '1048576', '5', '0', go],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    let exited = false;
    let code: number | null = null;
    child.on('exit', (c) => {
      exited = true;
      code = c;
    });
    let ours = 1;
    // Keep writing, as a busy gateway does, until the child is done (bounded, so a regression fails, not hangs).
    for (let i = 0; i < 200_000 && !exited; i++) {
      await guard.check(call, ctx);
      ours++;
      await nextTurn();
    }
    expect(exited).toBe(true);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const childIds = out.split('\n').filter((l) => l !== '' && l !== 'ready');
    expect(childIds).toHaveLength(5);
    audit.close();
    const report = await verifyChain(file);
    expect(report.ok).toBe(true);
    expect(report.records).toBe(ours + 5);
    const ids = new Set<string>();
    for await (const r of readRecords(file)) ids.add(r.decisionId as string);
    for (const id of childIds) expect(ids.has(id)).toBe(true);
  }, 60_000);

  it('a writer about to wait for one trail first lets go of the other trails it holds', async () => {
    const dir = tempDir();
    const a = join(dir, 'a.log');
    const b = join(dir, 'b.log');
    const auditB = auditLog({ file: b });
    const guardB = createGuard({ plugins: [denyAll, auditB] });
    await guardB.check({ tool: 'write_file', args: { path: '/etc/x' } }, ctx);
    expect(existsSync(`${b}.lock`)).toBe(true);
    // Trail a is held by a live process: this one waits for it (blocking the thread) and gives up.
    writeFileSync(`${a}.lock`, '1 livelivelivelive\n');
    const auditA = auditLog({ file: a, lockWaitMs: 50, retryMs: 10_000 });
    const guardA = createGuard({ plugins: [denyAll, auditA] });
    guardA.events.on('audit-error', () => {});
    await guardA.check({ tool: 'write_file', args: { path: '/etc/x' } }, ctx);
    expect(auditA.counters.buffered).toBe(1);
    // Checked before any timer could run: b was released before the wait, not by its idle check after it.
    expect(existsSync(`${b}.lock`)).toBe(false);
    unlinkSync(`${a}.lock`);
    auditA.close();
    await guardB.check({ tool: 'write_file', args: { path: '/etc/y' } }, ctx);
    auditB.close();
    expect((await verifyChain(b)).records).toBe(2);
    expect((await verifyChain(a)).records).toBe(1);
  });
});
