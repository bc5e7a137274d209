import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditLog } from '@toolgate/audit-log';
import { type CallContext, createGuard, type GuardPlugin } from '@toolgate/core';
import { folderRules } from '@toolgate/folder-rules';
import { runSuite } from './harness.js';

/**
 * Issue 14: what an audit record costs an allowed call at level `all` (goal: audit-on ≤ 1.5× audit-off),
 * with the record's parts measured apart: building it, serialising, hashing, the write(2).
 */
export default async function auditCostBench(): Promise<void> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-audit-cost-')));
  try {
    const ws = join(root, 'ws');
    mkdirSync(join(ws, 'src'), { recursive: true });
    const ctx: CallContext = { sessionId: 's', agentId: 'a', cwd: ws, workspace: ws, home: root, env: {} };
    const policy = () => folderRules({ rules: [{ pattern: '<workspace>/**', access: 'write' }] });
    const call = { tool: 'write_file', args: { path: 'src/a.ts', content: 'x'.repeat(200) } };
    const off = createGuard({ plugins: [policy()] });
    const audited = (name: string, extra: Parameters<typeof auditLog>[0] = {}): GuardPlugin =>
      auditLog({ file: join(root, name, 'trail.log'), level: 'all', policyHash: 'sha256:bench', ...extra });
    const on = createGuard({ plugins: [policy(), audited('on')] });
    const noChain = createGuard({ plugins: [policy(), audited('nochain', { chain: false })] });
    const noLock = createGuard({ plugins: [policy(), audited('nolock', { lockWaitMs: false })] });
    const asyncOn = createGuard({ plugins: [policy(), audited('async', { durability: 'async' })] });
    if ((await on.check(call, ctx)).action !== 'allow') throw new Error('bench: call not allowed');
    const m = await runSuite('audit: an allowed call at level all, audit off vs on', [
      { name: 'audit off', fn: () => off.check(call, ctx) },
      { name: 'audit on (sync, chained)', fn: () => on.check(call, ctx) },
      { name: 'audit on, chain off', fn: () => noChain.check(call, ctx) },
      { name: 'audit on, single writer (no lock)', fn: () => noLock.check(call, ctx) },
      { name: "audit on, durability 'async'", fn: () => asyncOn.check(call, ctx) },
    ]);
    const base = m.get('audit off') ?? Number.NaN;
    for (const name of [
      'audit on (sync, chained)',
      'audit on, chain off',
      'audit on, single writer (no lock)',
      "audit on, durability 'async'",
    ]) {
      const v = m.get(name) ?? Number.NaN;
      console.log(`${name}: +${Math.round(v - base)} ns/call, ${(v / base).toFixed(2)}× audit off`);
    }
    const r = (m.get('audit on (sync, chained)') ?? Number.NaN) / base;
    console.log(
      `audit-on / audit-off for allowed calls: ${r.toFixed(2)}× (goal ≤ 1.5×) ${r <= 1.5 ? 'OK' : 'OVER'}`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
