import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createGuard, type GuardPlugin } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { type AuditErrorEvent, auditLog, verifyChain } from '../src/index.js';
import { tempDir } from './helpers.js';

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
});
