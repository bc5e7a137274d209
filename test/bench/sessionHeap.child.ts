import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { approvals, autoAllow } from '@toolgate/approvals';
import { type CallContext, createGuard, type GuardPlugin } from '@toolgate/core';
import { folderRules } from '@toolgate/folder-rules';

// Run by scale.bench.ts with --expose-gc: heap growth after N distinct sessions, each making one call that
// needs approval (answered with a directory grant), one that is allowed, and one that is denied.
// argv: <sessions> <with approvals: 0|1> <sessions.max or 'unbounded'>
const [n = '100000', withApprovals = '1', max = 'default'] = process.argv.slice(2);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-heap-')));
try {
  const ws = join(root, 'ws');
  mkdirSync(join(ws, 'secrets'), { recursive: true });
  const plugins: GuardPlugin[] = [
    folderRules({
      rules: [
        { pattern: '<workspace>/secrets/**', access: 'prompt' },
        { pattern: '<workspace>/**', access: 'write' },
      ],
    }),
  ];
  if (withApprovals === '1') plugins.push(approvals({ strategy: autoAllow({ grant: 'directory' }) }));
  const guard = createGuard({
    plugins,
    ...(max === 'unbounded' ? { sessions: { max: Number.MAX_SAFE_INTEGER } } : {}),
  });
  const ctx = (i: number): CallContext => ({
    sessionId: `session-${i}`,
    agentId: 'a',
    cwd: ws,
    workspace: ws,
    home: root,
    env: {},
  });
  // Warm up the code paths (and the compiled policy) before the baseline.
  for (let i = 0; i < 200; i++)
    await guard.check({ tool: 'write_file', args: { path: 'secrets/a' } }, ctx(-i - 1));
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  const count = Number(n);
  for (let i = 0; i < count; i++) {
    const c = ctx(i);
    await guard.check({ tool: 'write_file', args: { path: 'secrets/a' } }, c);
    await guard.check({ tool: 'write_file', args: { path: 'src/a.ts' } }, c);
    await guard.check({ tool: 'write_file', args: { path: '/etc/passwd' } }, c);
  }
  gc();
  gc();
  const after = process.memoryUsage().heapUsed;
  // The guard must still be reachable when the heap is measured, or GC takes its sessions with it.
  if (guard.plugins.length === 0) throw new Error('unreachable');
  process.stdout.write(`${JSON.stringify({ sessions: count, growthBytes: after - before })}\n`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
