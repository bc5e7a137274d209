import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CallContext, createGuard } from '@toolgate/core';
import { folderRules, loadPolicy } from '@toolgate/folder-rules';
import { runSuite } from './harness.js';

// Issue 14: a decision costs the same at any policy size and any number of workspaces. Each pair is measured
// side by side in one run and printed as a ratio against its goal.
function policyText(n: number, workspaceRule = false): string {
  const lines = ['default: deny', 'rules:'];
  if (workspaceRule) lines.push('  - { pattern: "<workspace>/**", access: write }');
  lines.push('  - { pattern: "**/.env", access: deny }', '  - { pattern: "~/.ssh/**", access: deny }');
  for (let i = 0; lines.length - 2 < n; i++) {
    const k = i % 4;
    if (k === 0) lines.push(`  - { pattern: "/srv/projects/p${i}/**", access: write }`);
    else if (k === 1) lines.push(`  - { pattern: "/data/set${i}/**", access: read }`);
    else if (k === 2) lines.push(`  - { pattern: "/srv/projects/p${i - 2}/secrets/**", access: deny }`);
    else lines.push(`  - { pattern: "/var/log/app${i}/*.log", access: read }`);
  }
  return lines.join('\n');
}

function ratioLine(what: string, num: number, den: number, goal: number): void {
  const r = num / den;
  console.log(`${what}: ${r.toFixed(2)}× (goal ≤ ${goal}×) ${r <= goal ? 'OK' : 'OVER'}`);
}

export default async function scaleBench(): Promise<void> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-scale-bench-')));
  try {
    const home = join(root, 'home');
    mkdirSync(home, { recursive: true });
    const ctxFor = (ws: string): CallContext => ({
      sessionId: 's',
      agentId: 'a',
      cwd: ws,
      workspace: ws,
      home,
      env: {},
    });
    const ws0 = join(root, 'ws0');
    mkdirSync(ws0, { recursive: true });
    const ctx = ctxFor(ws0);

    const small = createGuard({
      plugins: [folderRules({ policy: loadPolicy({ dialect: 'toolgate', source: policyText(10) }) })],
    });
    const large = createGuard({
      plugins: [folderRules({ policy: loadPolicy({ dialect: 'toolgate', source: policyText(10_000) }) })],
    });
    const allowCall = { tool: 'write_file', args: { path: '/srv/projects/p4/src/main.ts' } };
    const denyCall = { tool: 'write_file', args: { path: '/etc/cron.d/job' } };
    if ((await small.check(allowCall, ctx)).action !== 'allow')
      throw new Error('bench: allow call not allowed');
    const denied = await large.check(denyCall, ctx);
    if (denied.action !== 'deny') throw new Error('bench: deny call not denied');
    console.log(
      `\nenvelope of a deny at 10,000 rules: ${JSON.stringify(denied.envelope).length} bytes, ${denied.envelope?.allowed_paths?.length ?? 0} allowed_paths shown`,
    );
    const d = await runSuite('scale: deny at 10,000 rules vs allow at 10 rules (guard.check, write_file)', [
      { name: 'allow, 10 rules', fn: () => small.check(allowCall, ctx) },
      { name: 'allow, 10,000 rules', fn: () => large.check(allowCall, ctx) },
      { name: 'deny, 10 rules', fn: () => small.check(denyCall, ctx) },
      { name: 'deny, 10,000 rules', fn: () => large.check(denyCall, ctx) },
    ]);
    ratioLine(
      'deny at 10,000 rules / allow at 10 rules',
      d.get('deny, 10,000 rules') ?? Number.NaN,
      d.get('allow, 10 rules') ?? Number.NaN,
      2,
    );

    // 100 workspaces served round robin by one guard, 1,000 rules with a `<workspace>/**` grant.
    const wsPolicy = loadPolicy({ dialect: 'toolgate', source: policyText(1_000, true) });
    const wsGuard = createGuard({ plugins: [folderRules({ policy: wsPolicy })] });
    const ctxs = Array.from({ length: 100 }, (_, i) => {
      const ws = join(root, `ws${i}`);
      mkdirSync(join(ws, 'src'), { recursive: true });
      return ctxFor(ws);
    });
    const wsCalls = ctxs.map((c) => ({ tool: 'write_file', args: { path: join(c.workspace, 'src/a.ts') } }));
    for (let i = 0; i < 100; i++)
      if ((await wsGuard.check(wsCalls[i]!, ctxs[i]!)).action !== 'allow')
        throw new Error('bench: workspace call not allowed');
    let next = 0;
    const w = await runSuite('scale: one workspace vs 100 workspaces round robin (1,000 rules)', [
      { name: 'one workspace', fn: () => wsGuard.check(wsCalls[0]!, ctxs[0]!) },
      {
        name: '100 workspaces round robin',
        fn: () => {
          next = (next + 1) % 100;
          return wsGuard.check(wsCalls[next]!, ctxs[next]!);
        },
      },
    ]);
    ratioLine(
      '100 workspaces round robin / one workspace',
      w.get('100 workspaces round robin') ?? Number.NaN,
      w.get('one workspace') ?? Number.NaN,
      2,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  await sessionHeap();
}

/** Heap growth after 100,000 sessions, measured in a child process with --expose-gc. */
export async function sessionHeap(): Promise<void> {
  const { execFileSync } = await import('node:child_process');
  const child = join(dirname(fileURLToPath(import.meta.url)), 'sessionHeap.child.ts');
  const run = (withApprovals: boolean, max: string) => {
    const out = execFileSync(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', child, '100000', withApprovals ? '1' : '0', max],
      { encoding: 'utf8', maxBuffer: 1 << 20 },
    );
    return JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as { growthBytes: number };
  };
  console.log('\n## scale: heap growth after 100,000 sessions (3 calls each, after GC, child process)');
  const rows = [
    ['approvals, sessions unbounded (before issue 14)', run(true, 'unbounded')],
    ['approvals, default session LRU', run(true, 'default')],
    ['no approvals, default session LRU', run(false, 'default')],
  ] as const;
  console.table(
    rows.map(([name, r]) => ({ case: name, 'heap growth MB': (r.growthBytes / 2 ** 20).toFixed(1) })),
  );
  const bounded = rows[1][1].growthBytes / 2 ** 20;
  console.log(
    `heap growth with approvals, default LRU: ${bounded.toFixed(1)} MB (goal < 20 MB) ${bounded < 20 ? 'OK' : 'OVER'}`,
  );
}
