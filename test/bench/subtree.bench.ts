import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccess, createGuard } from '@toolgate/core';
import { evaluatorFor, folderRules } from '@toolgate/folder-rules';
import { runSuite } from './harness.js';

// A subtree check of a real 10,000-file workspace (370 directories, depth 3, 27 files each — the shape of
// a mid-sized repository without node_modules) under the usual policy. Goal: ≤ 5 ms a check.
const TOP = 10;
const MID = 6;
const LEAF = 5;
const FILES = 27;

function buildTree(ws: string): { files: number; dirs: number } {
  let files = 0;
  let dirs = 0;
  const fill = (dir: string, n: number) => {
    mkdirSync(dir, { recursive: true });
    dirs++;
    for (let i = 0; i < n; i++) writeFileSync(join(dir, `f${i}.ts`), '');
    files += n;
  };
  for (let a = 0; a < TOP; a++) {
    for (let b = 0; b < MID; b++) {
      for (let c = 0; c < LEAF; c++) fill(join(ws, `pkg${a}`, `mod${b}`, `part${c}`), FILES);
      fill(join(ws, `pkg${a}`, `mod${b}`), 2);
    }
    fill(join(ws, `pkg${a}`), 4);
  }
  const rest = 10_000 - files;
  for (let i = 0; i < rest; i++) writeFileSync(join(ws, `top${i}.md`), '');
  return { files: files + rest, dirs };
}

/** The floor: the same walk with no policy at all (one readdir with file types per directory). */
function bareWalk(dir: string): number {
  let n = 0;
  const stack = [dir];
  while (stack.length > 0) {
    const d = stack.pop() as string;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      n++;
      if (e.isDirectory()) stack.push(`${d}/${e.name}`);
    }
  }
  return n;
}

export default async function subtreeBench(): Promise<void> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-subtree-bench-')));
  try {
    const ws = join(root, 'ws');
    const home = join(root, 'home');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    const shape = buildTree(ws);
    console.log(`\nworkspace: ${shape.files} files in ${shape.dirs} directories (depth 3), ${ws}`);
    const ctx = { sessionId: 's', agentId: 'a', cwd: ws, workspace: ws, home, env: {} };
    // The bench measures the walk itself: a time bound generous enough that load never cuts it short.
    const plugin = folderRules({
      subtreeWalk: { maxMs: 5_000 },
      rules: [
        { pattern: '<workspace>/**', access: 'write' },
        { pattern: '/tmp/**', access: 'write' },
        { pattern: '/usr/**', access: 'read' },
        { pattern: '/opt/**', access: 'read' },
        { pattern: '/etc/**', access: 'read' },
        { pattern: '/etc/shadow', access: 'deny' },
        { pattern: '~/.ssh/**', access: 'deny' },
        { pattern: '**/.env', access: 'deny' },
      ],
    });
    const ev = evaluatorFor(plugin.compiled, ctx);
    const walk = { walk: { maxMs: 5_000 } };
    const origin = 'shell:grep:argv';
    const read = createAccess(ws, 'read', ctx, { origin, scope: 'subtree' });
    const list = createAccess(ws, 'list', ctx, { origin, scope: 'subtree' });
    const follow = { ...read, followLinks: true };
    const one = createAccess(join(ws, 'pkg3', 'mod2', 'part1', 'f7.ts'), 'read', ctx, { origin });
    const first = ev.evaluate(read, { ...walk, trace: true });
    if (first.decision !== 'allow')
      throw new Error(`the bench tree must be allowed without .env: ${first.why}`);
    const guard = createGuard({ plugins: [plugin] });
    await runSuite(`folder-rules: subtree check of a ${shape.files}-file workspace under **/.env (walk)`, [
      { name: 'read subtree (grep -r, tar), no .env: full walk', fn: () => ev.evaluate(read, walk) },
      { name: 'list subtree (ls -R, find), no .env', fn: () => ev.evaluate(list, walk) },
      { name: 'read subtree, links followed (grep -R)', fn: () => ev.evaluate(follow, walk) },
      {
        name: 'worst case without walking (subtreeWalk: false)',
        fn: () => ev.evaluate(read, { walk: false }),
      },
      { name: 'one file (path access), for comparison', fn: () => ev.evaluate(one) },
      { name: 'floor: bare readdir walk of the same tree, no policy', fn: () => bareWalk(ws) },
      {
        name: 'guard.check Grep of the workspace (resolve + extract + walk)',
        fn: () => guard.check({ tool: 'Grep', args: { path: ws } }, ctx),
      },
    ]);
    // Early stop: a .env in the last directory the walk reaches, and in the first.
    writeFileSync(join(ws, 'pkg0', 'mod0', 'part0', '.env'), '');
    if (ev.evaluate(read, walk).decision !== 'deny') throw new Error('a .env beneath must deny');
    await runSuite('folder-rules: subtree check that finds a .env (stops at the first deny)', [
      { name: 'read subtree, .env deep in the tree', fn: () => ev.evaluate(read, walk) },
    ]);
    writeFileSync(join(ws, '.env'), '');
    await runSuite('folder-rules: subtree check, .env at the root', [
      { name: 'read subtree, .env at the top level', fn: () => ev.evaluate(read, walk) },
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
