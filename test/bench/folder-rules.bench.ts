import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccess, createGuard } from '@toolgate/core';
import { evaluatorFor, folderRules, loadPolicy } from '@toolgate/folder-rules';
import { runSuite } from './harness.js';

// Policies of N rules shaped like real ones: per-project workspace grants, read-only data dirs, denied
// secrets, and a few anywhere-patterns. The decision should cost what the rules that could match cost
// (the prefix index), not all N.
function policyText(n: number): string {
  const lines = ['default: deny', 'rules:'];
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

export default async function folderRulesBench(): Promise<void> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-fr-bench-')));
  try {
    const ws = join(root, 'ws');
    mkdirSync(join(ws, 'src'), { recursive: true });
    writeFileSync(join(ws, 'src', 'index.ts'), '');
    const ctx = { sessionId: 's', agentId: 'a', cwd: ws, workspace: ws, home: join(root, 'home'), env: {} };
    const decide: { name: string; fn: () => unknown }[] = [];
    const full: { name: string; fn: () => unknown }[] = [];
    const subtree: { name: string; fn: () => unknown }[] = [];
    for (const n of [10, 100, 1_000, 10_000]) {
      const policy = loadPolicy({ dialect: 'toolgate', source: policyText(n), file: `bench-${n}.yaml` });
      const ev = evaluatorFor(policy, ctx);
      // A file-tool call into one project: the access is built once, the decision measured alone.
      const access = createAccess('/srv/projects/p4/src/main.ts', 'write', ctx, {
        origin: 'folder-rules:args.path',
      });
      if (ev.evaluate(access).decision !== 'allow') throw new Error('bench policy does not allow the call');
      decide.push({ name: `evaluate, ${n} rules`, fn: () => ev.evaluate(access) });
      // A subtree access (`grep -r`, `search_files`) whose root does not exist here: the root's verdict, the
      // rules stricter than it found through the prefix index, and one lstat (the walk of a real tree is
      // measured in subtree.bench.ts).
      const tree = createAccess('/srv/projects/p4', 'read', ctx, {
        origin: 'folder-rules:args.path',
        scope: 'subtree',
      });
      subtree.push({ name: `evaluate subtree, ${n} rules`, fn: () => ev.evaluate(tree) });
      const guard = createGuard({ plugins: [folderRules({ policy })] });
      const call = { tool: 'write_file', args: { path: '/srv/projects/p4/src/main.ts' } };
      full.push({ name: `guard.check write_file, ${n} rules`, fn: () => guard.check(call, ctx) });
    }
    await runSuite('folder-rules: decision for one file access (evaluator, access resolved once)', decide);
    await runSuite('folder-rules: subtree access, root absent (prefix-index scope + one lstat)', subtree);
    await runSuite(
      'folder-rules: whole guard.check of a write_file call (resolvePath + extraction + decision)',
      full,
    );
    // Issue 17: arguments walked at any depth, tools planned once per name, patches parsed. Each call is
    // allowed (every path inside the workspace), so every access is resolved and judged.
    const policy = loadPolicy({
      dialect: 'toolgate',
      file: 'args.yaml',
      source: `${policyText(100)}\n  - { pattern: "<workspace>/**", access: write }\ntools:\n  batch_write: { op: write, paths: ["ops[].path"] }\n`,
    });
    const guard = createGuard({ plugins: [folderRules({ policy, unknownTools: 'allow' })] });
    const ops = Array.from({ length: 10 }, (_, i) => ({
      path: join(ws, 'src', `f${i}.ts`),
      content: 'x'.repeat(200),
    }));
    const nested = {
      job: { name: 'sync', meta: { tags: ['a', 'b'], owner: 'me' } },
      items: Array.from({ length: 10 }, (_, i) => ({
        id: i,
        note: 'text',
        target_file: join(ws, 'src', `t${i}`),
      })),
    };
    const patch = `*** Begin Patch\n${Array.from({ length: 10 }, (_, i) => `*** Update File: src/p${i}.ts\n@@\n-a\n+b`).join('\n')}\n*** End Patch`;
    const argCalls = [
      {
        name: 'write_file {path, content} (built-in tool)',
        call: { tool: 'write_file', args: { path: join(ws, 'src', 'index.ts'), content: 'x' } },
      },
      { name: 'batch_write, 10 ops[].path (policy selector)', call: { tool: 'batch_write', args: { ops } } },
      {
        name: 'undeclared tool, 10 nested target_file + other args',
        call: { tool: 'frobnicate', args: nested },
      },
      { name: 'apply_patch, 10-file Codex envelope', call: { tool: 'apply_patch', args: { input: patch } } },
    ];
    for (const c of argCalls) {
      const d = await guard.check(c.call, ctx);
      if (d.action !== 'allow')
        throw new Error(`bench call ${c.name} is not allowed: ${d.reasons[0]?.reason}`);
    }
    await runSuite(
      'folder-rules: guard.check by argument shape (100-rule policy; discovery + resolution + decision)',
      argCalls.map((c) => ({ name: c.name, fn: () => guard.check(c.call, ctx) })),
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
