import { readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createGuard } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { type AuditErrorEvent, auditLog, verifyChain } from '../src/index.js';
import { context, tempDir, workspacePolicy } from './helpers.js';

async function until(cond: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('disk failure: the decision stands, the failure is reported, records are buffered and retried', () => {
  it('ENOSPC (the trail is /dev/full), then the disk comes back', async () => {
    const root = tempDir();
    const file = join(root, 'violations.log');
    symlinkSync('/dev/full', file); // every write fails with ENOSPC, as on a full disk
    const audit = auditLog({ file, retryMs: 20 });
    const guard = createGuard({ plugins: [workspacePolicy(), audit] });
    const errors: AuditErrorEvent[] = [];
    guard.events.on('audit-error', (e: AuditErrorEvent) => errors.push(e));
    const ctx = context(root);
    const first = await guard.check({ tool: 'write_file', args: { path: '/etc/a' } }, ctx);
    const second = await guard.check({ tool: 'write_file', args: { path: '/etc/b' } }, ctx);
    expect([first.action, second.action]).toEqual(['deny', 'deny']);
    expect(audit.counters.failures).toBeGreaterThanOrEqual(1);
    expect(audit.counters.buffered).toBe(2);
    expect(errors[0]).toMatchObject({ plugin: 'audit-log', what: 'write', error: { code: 'ENOSPC' } });
    unlinkSync(file); // space again: the retry reopens the path and writes what it held, in order
    await until(() => audit.counters.buffered === 0);
    const ids = readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { decisionId: string }).decisionId);
    expect(ids).toEqual([first.id, second.id]);
    expect((await verifyChain(file)).ok).toBe(true);
    audit.close();
  });

  it('the buffer is bounded: beyond maxBuffered records are counted as dropped, not kept', async () => {
    const root = tempDir();
    const file = join(root, 'violations.log');
    symlinkSync('/dev/full', file);
    const audit = auditLog({ file, maxBuffered: 3, retryMs: 60_000 });
    const guard = createGuard({ plugins: [workspacePolicy(), audit] });
    const events: string[] = [];
    guard.events.on('audit-error', (e: AuditErrorEvent) => events.push(e.what));
    for (let i = 0; i < 5; i++) {
      const d = await guard.check({ tool: 'write_file', args: { path: `/etc/${i}` } }, context(root));
      expect(d.action).toBe('deny');
    }
    expect(audit.counters).toMatchObject({ buffered: 3, dropped: 2 });
    expect(events.filter((e) => e === 'dropped')).toHaveLength(2);
    audit.close();
  });
});

describe('disk failure at startup', () => {
  it('a trail that cannot be opened yet: denies stand, the failure is reported once the guard exists, records wait', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'blocker'), 'a file where the trail directory should be');
    const file = join(root, 'blocker', 'audit', 'violations.log');
    const audit = auditLog({ file, retryMs: 20 });
    const guard = createGuard({ plugins: [workspacePolicy(), audit] });
    const errors: AuditErrorEvent[] = [];
    guard.events.on('audit-error', (e: AuditErrorEvent) => errors.push(e));
    // The open failed inside auditLog(), before anyone could listen: it is replayed once the host can listen.
    expect(audit.counters.failures).toBeGreaterThanOrEqual(1);
    await until(() => errors.length > 0);
    expect(errors[0]).toMatchObject({ what: 'open', error: { code: 'ENOTDIR' } });
    const d = await guard.check({ tool: 'write_file', args: { path: '/etc/x' } }, context(root));
    expect(d.action).toBe('deny');
    expect(audit.counters.buffered).toBe(1);
    unlinkSync(join(root, 'blocker'));
    await until(() => audit.counters.buffered === 0);
    expect(readFileSync(file, 'utf8')).toContain(d.id);
    audit.close();
  });
});
