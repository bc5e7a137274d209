import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGuard, type GuardPlugin, resolvePath } from '@toolgate/core';
import { runSuite } from './harness.js';

const noop = (i: number): GuardPlugin => ({
  name: `noop-${i}`,
  apply(hooks) {
    hooks.collectAccesses.tap('x', (accesses) => accesses);
    hooks.beforeToolCall.tap('x', () => undefined);
  },
});

export default async function coreBench(): Promise<void> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-bench-')));
  try {
    const ws = join(root, 'ws');
    mkdirSync(join(ws, 'src'), { recursive: true });
    mkdirSync(join(root, 'home'), { recursive: true });
    writeFileSync(join(ws, 'src', 'index.ts'), '');
    writeFileSync(join(ws, 'src', 'a.ts'), '');
    writeFileSync(join(ws, 'src', 'b.ts'), '');
    writeFileSync(join(root, 'home', 'notes.md'), '');
    mkdirSync(join(root, 'target'), { recursive: true });
    writeFileSync(join(root, 'target', 'file'), '');
    symlinkSync(join(root, 'target'), join(ws, 'link'));
    const four = ['src/index.ts', 'src/a.ts', 'src/b.ts', 'src/new.ts'];
    const ctx = { sessionId: 's', agentId: 'a', cwd: ws, workspace: ws, home: join(root, 'home'), env: {} };
    const call = { tool: 'web_search', args: { query: 'x' } };
    const guards = [0, 1, 5].map((n) =>
      createGuard({ plugins: Array.from({ length: n }, (_, i) => noop(i)) }),
    );
    const plain = (c: typeof call) => (c.tool === '' ? 1 : 0);
    const pipeline = await runSuite('core: guard.check overhead (sync no-op plugins)', [
      { name: 'plain function call', fn: () => plain(call) },
      { name: 'plain async function call', fn: async () => plain(call) },
      { name: 'guard.check, 0 plugins', fn: () => guards[0]!.check(call, ctx) },
      { name: 'guard.check, 1 plugin', fn: () => guards[1]!.check(call, ctx) },
      { name: 'guard.check, 5 plugins', fn: () => guards[2]!.check(call, ctx) },
    ]);
    const base = pipeline.get('plain async function call') ?? 0;
    for (const n of [0, 1, 5]) {
      const m = pipeline.get(`guard.check, ${n} plugin${n === 1 ? '' : 's'}`) ?? Number.NaN;
      console.log(
        `pipeline overhead with ${n} sync plugins: ${Math.round(m - base)} ns/call (goal < 1000 ns with 5)`,
      );
    }
    await runSuite('core: resolvePath (existing paths, dentry cache warm)', [
      { name: 'relative (src/index.ts)', fn: () => resolvePath('src/index.ts', ctx) },
      { name: 'absolute (/ws/src/index.ts)', fn: () => resolvePath(join(ws, 'src', 'index.ts'), ctx) },
      { name: 'tilde (~/notes.md)', fn: () => resolvePath('~/notes.md', ctx) },
      { name: 'through a symlink (link/file)', fn: () => resolvePath('link/file', ctx) },
      { name: 'new file in existing dir (src/new.ts)', fn: () => resolvePath('src/new.ts', ctx) },
      {
        name: '4 paths in one dir, one call (shared realDirs)',
        fn: () => {
          const realDirs = new Set<string>();
          for (const p of four) resolvePath(p, ctx, { realDirs });
        },
      },
      {
        name: '4 paths in one dir, no sharing',
        fn: () => {
          for (const p of four) resolvePath(p, ctx);
        },
      },
      { name: 'new file in new dir (src/new/file.ts)', fn: () => resolvePath('src/new/file.ts', ctx) },
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
