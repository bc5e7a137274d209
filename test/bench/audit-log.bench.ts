import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AuditLogOptions, auditLog, getStats, queryViolations, trailFiles } from '@toolgate/audit-log';
import { createGuard, type GuardPlugin } from '@toolgate/core';
import { runSuite } from './harness.js';

// A policy that denies every call on one pre-built access: the bench measures the audit, not path resolution.
const denyAll: GuardPlugin = {
  name: 'deny-all',
  apply(hooks) {
    hooks.collectAccesses.tap('x', (accesses) => [
      ...accesses,
      {
        op: 'write',
        scope: 'path',
        raw: '/etc/passwd',
        path: '/etc/passwd',
        realPath: '/etc/passwd',
        origin: 'bench',
        certain: true,
      },
    ]);
    hooks.beforeToolCall.tap('x', (_call, state) => ({
      action: 'deny',
      code: 'PATH_DENIED',
      reason: 'path outside allowed scope',
      access: state.accesses[0]!,
      rule: {
        plugin: 'deny-all',
        pattern: '/etc/**',
        access: 'deny',
        source: 'toolgate:policy.yaml#rules[0]',
      },
    }));
  },
};

// The same observer taps with nothing in them: what core's observer path costs before any audit work.
const noopObservers: GuardPlugin = {
  name: 'noop-observers',
  apply(hooks) {
    hooks.onViolation.tap({ stage: 1_000 }, () => undefined);
    hooks.onDecision.tap({ stage: 1_000 }, () => undefined);
  },
};

export default async function auditLogBench(): Promise<void> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-audit-bench-')));
  try {
    const ctx = { sessionId: 's', agentId: 'agent', cwd: root, workspace: root, home: root, env: {} };
    const call = { tool: 'write_file', args: { path: '/etc/passwd', content: 'x'.repeat(200) } };
    const audited = (name: string, opts: AuditLogOptions) => {
      const audit = auditLog({
        file: join(root, name, 'violations.log'),
        policyHash: 'sha256:bench',
        ...opts,
      });
      return { audit, guard: createGuard({ plugins: [denyAll, audit] }) };
    };
    const bare = createGuard({ plugins: [denyAll] });
    const observed = createGuard({ plugins: [denyAll, noopObservers] });
    const sync = audited('sync', {});
    const syncNoChain = audited('sync-nochain', { chain: false });
    const asyncMode = audited('async', { durability: 'async' });
    const fsyncGuard = audited('fsync-real', { durability: 'fsync' });
    const m = await runSuite('audit-log: a deny with and without the audit record', [
      { name: 'deny, no audit', fn: () => bare.check(call, ctx) },
      { name: 'deny + no-op observer taps', fn: () => observed.check(call, ctx) },
      { name: "deny + audit 'sync' (chained)", fn: () => sync.guard.check(call, ctx) },
      { name: "deny + audit 'sync', chain off", fn: () => syncNoChain.guard.check(call, ctx) },
      { name: "deny + audit 'async'", fn: () => asyncMode.guard.check(call, ctx) },
      { name: "deny + audit 'fsync'", fn: () => fsyncGuard.guard.check(call, ctx) },
    ]);
    const base = m.get('deny, no audit') ?? Number.NaN;
    for (const name of [
      'deny + no-op observer taps',
      "deny + audit 'sync' (chained)",
      "deny + audit 'sync', chain off",
      "deny + audit 'async'",
      "deny + audit 'fsync'",
    ]) {
      const added = (m.get(name) ?? Number.NaN) - base;
      console.log(`${name}: adds ${(added / 1000).toFixed(2)} µs median per deny (goal < 10 µs for 'sync')`);
    }
    // Records per second, sync durability: a tight loop of denies for one second, counted from the trail's counter.
    const before = sync.audit.counters.written;
    const start = process.hrtime.bigint();
    let elapsed = 0;
    while (elapsed < 1e9) {
      for (let i = 0; i < 200; i++) await sync.guard.check(call, ctx);
      elapsed = Number(process.hrtime.bigint() - start);
    }
    const records = sync.audit.counters.written - before;
    console.log(
      `sync durability: ${Math.round(records / (elapsed / 1e9))} records/second through guard.check (rotating at 10 MiB)`,
    );
    console.log(
      `rotations during the bench: ${sync.audit.counters.rotations}, failures: ${sync.audit.counters.failures}`,
    );
    for (const a of [sync, syncNoChain, asyncMode, fsyncGuard]) a.audit.close();

    // Streaming query and stats over the current and rotated files of the sync trail.
    const file = sync.audit.file;
    const total = sync.audit.counters.written;
    let t = process.hrtime.bigint();
    const stats = await getStats({ file });
    const statsMs = Number(process.hrtime.bigint() - t) / 1e6;
    t = process.hrtime.bigint();
    const found = await queryViolations({ file, path: '/etc/**', severity: 'critical', limit: 100 });
    const queryMs = Number(process.hrtime.bigint() - t) / 1e6;
    console.log(
      `getStats over ${stats.total} records in ${trailFiles(file).length} files: ${statsMs.toFixed(0)} ms ` +
        `(${Math.round(stats.total / (statsMs / 1000))} records/s); queryViolations (glob, severity, limit 100): ` +
        `${queryMs.toFixed(0)} ms, ${found.length} results (${total} records written during the bench)`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
