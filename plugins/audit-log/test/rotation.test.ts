import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createGuard } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { auditLog, queryViolations, trailFiles, verifyChain } from '../src/index.js';
import { context, tempDir, workspacePolicy } from './helpers.js';

describe('rotation: exact size cap, seed 001 naming', () => {
  it('a burst of concurrent denies never pushes a file over the cap, and keeps exactly `keep` rotated files', async () => {
    const root = tempDir();
    const file = join(root, 'violations.log');
    const audit = auditLog({ file, maxSize: 4096, keep: 3 });
    const guard = createGuard({ plugins: [workspacePolicy(), audit] });
    const ctx = context(root);
    const decisions = await Promise.all(
      Array.from({ length: 400 }, (_, i) =>
        guard.check({ tool: 'write_file', args: { path: `/etc/burst-${i}` } }, ctx),
      ),
    );
    expect(trailFiles(file)).toEqual([`${file}.3`, `${file}.2`, `${file}.1`, file]);
    expect(existsSync(`${file}.4`)).toBe(false);
    for (const f of trailFiles(file)) expect(statSync(f).size).toBeLessThanOrEqual(4096);
    expect(audit.counters.rotations).toBeGreaterThan(3);
    // The kept records are the newest ones, whole and in order.
    const ids = trailFiles(file).flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { decisionId: string }).decisionId),
    );
    expect(ids).toEqual(decisions.slice(-ids.length).map((d) => d.id));
    const report = await verifyChain(file);
    expect(report).toMatchObject({ ok: true, records: ids.length, fromGenesis: false });
  });

  it('a restarted writer continues the current file and the chain', async () => {
    const root = tempDir();
    const file = join(root, 'violations.log');
    const ctx = context(root);
    for (let run = 0; run < 3; run++) {
      const audit = auditLog({ file, maxSize: 8192 });
      const guard = createGuard({ plugins: [workspacePolicy(), audit] });
      for (let i = 0; i < 5; i++)
        await guard.check({ tool: 'write_file', args: { path: `/etc/r${run}-${i}` } }, ctx);
      audit.close();
    }
    const report = await verifyChain(file);
    expect(report).toMatchObject({ ok: true, records: 15, fromGenesis: true });
    expect(trailFiles(file).length).toBeGreaterThan(1);
  });
});

describe('one writer per trail in a process', () => {
  it('guards built per agent on one file share its writer: the cap holds and the chain does not fork', async () => {
    const root = tempDir();
    const file = join(root, 'violations.log');
    const audits = [0, 1, 2].map(() => auditLog({ file, maxSize: 4096, keep: 50 }));
    const guards = audits.map((audit) => createGuard({ plugins: [workspacePolicy(), audit] }));
    await Promise.all(
      Array.from({ length: 90 }, (_, i) =>
        guards[i % 3]!.check(
          { tool: 'write_file', args: { path: `/etc/${i}` } },
          context(root, { agentId: `a${i % 3}` }),
        ),
      ),
    );
    for (const f of trailFiles(file)) expect(statSync(f).size).toBeLessThanOrEqual(4096);
    expect(await verifyChain(file)).toMatchObject({ ok: true, records: 90, fromGenesis: true });
    audits[0]!.close();
    await guards[1]!.check({ tool: 'write_file', args: { path: '/etc/after' } }, context(root));
    expect((await verifyChain(file)).records).toBe(91);
    audits[1]!.close();
    audits[2]!.close();
  });

  it('a second plugin on the same file with other rotation settings is refused at construction', () => {
    const file = join(tempDir(), 'violations.log');
    const first = auditLog({ file });
    expect(() => auditLog({ file, maxSize: 2048 })).toThrow(
      /option file ".*violations.log" is already open in this process with other maxSize/,
    );
    first.close();
    expect(() => auditLog({ file, maxSize: 2048 }).close()).not.toThrow();
  });
});

describe('gzip of rotated files', () => {
  it('rotated files become .N.gz in the background; the cap, the count, queries and the chain all hold', async () => {
    const root = tempDir();
    const file = join(root, 'violations.log');
    const audit = auditLog({ file, maxSize: 4096, keep: 3, compress: true });
    const guard = createGuard({ plugins: [workspacePolicy(), audit] });
    const decisions = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        guard.check({ tool: 'write_file', args: { path: `/etc/gz-${i}` } }, context(root)),
      ),
    );
    for (let i = 0; i < 500 && trailFiles(file).some((f) => /\.\d+$/.test(f)); i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(trailFiles(file)).toEqual([`${file}.3.gz`, `${file}.2.gz`, `${file}.1.gz`, file]);
    // No partial or temporary file left; the trail's lock file may still be there (a writer keeps the lock
    // until it has been idle a moment).
    expect(
      readdirSync(root)
        .filter((n) => n !== 'violations.log.lock')
        .sort(),
    ).toEqual(['violations.log', 'violations.log.1.gz', 'violations.log.2.gz', 'violations.log.3.gz']);
    const records = await queryViolations({ file });
    expect(records.map((r) => r.decisionId)).toEqual(decisions.slice(-records.length).map((d) => d.id));
    expect(records.length).toBeGreaterThan(10);
    expect(await verifyChain(file)).toMatchObject({ ok: true, records: records.length });
    audit.close();
  });

  it('a restart right after a rotation continues the chain from the compressed file', async () => {
    const root = tempDir();
    const file = join(root, 'violations.log');
    const first = auditLog({ file, maxSize: 4096, compress: true });
    const g1 = createGuard({ plugins: [workspacePolicy(), first] });
    for (let i = 0; i < 12; i++)
      await g1.check({ tool: 'write_file', args: { path: `/etc/a${i}` } }, context(root));
    for (let i = 0; i < 500 && trailFiles(file).some((f) => /\.\d+$/.test(f)); i++)
      await new Promise((r) => setTimeout(r, 10));
    first.close();
    writeFileSync(file, ''); // as if the process died right after rotating
    const second = auditLog({ file, maxSize: 4096, compress: true });
    const g2 = createGuard({ plugins: [workspacePolicy(), second] });
    await g2.check({ tool: 'write_file', args: { path: '/etc/b' } }, context(root));
    second.close();
    const report = await verifyChain(file);
    expect(report.ok).toBe(true);
    expect(report.files.some((f) => f.endsWith('.gz'))).toBe(true);
  });
});
