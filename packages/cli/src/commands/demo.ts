import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallContext, createGuard, type GuardPlugin, isWithin, uncertainAccess } from '@toolgate/core';
import type { Command } from 'commander';

// A deliberately small policy so the foundation's demo runs on its own: reads and writes under the
// workspace, nothing else. The full demo composes @toolgate/folder-rules, shell, audit-log and approvals.
function workspaceOnly(): GuardPlugin {
  return {
    name: 'workspace-only',
    apply(hooks) {
      hooks.collectAccesses.tap('extract', (accesses, call, state) => {
        const out = [...accesses];
        for (const key of ['path', 'source', 'destination']) {
          const raw = call.args[key];
          const op = call.tool.startsWith('read') ? 'read' : 'write';
          if (typeof raw === 'string') out.push(state.access(raw, op, { origin: `args.${key}` }));
          else if (raw !== undefined)
            out.push(uncertainAccess(String(raw), op, `args.${key}`, 'path argument is not a string'));
        }
        return out;
      });
      hooks.beforeToolCall.tap('judge', (_call, state) => {
        for (const a of state.accesses) {
          if (a.realPath !== null && !isWithin(a.realPath, state.ctx.workspace)) {
            return {
              action: 'deny',
              code: 'PATH_DENIED',
              reason: 'path outside allowed scope',
              access: a,
              allowedPaths: [state.ctx.workspace],
            };
          }
        }
        return undefined;
      });
    },
  };
}

export async function runDemo(out: NodeJS.WritableStream = process.stdout): Promise<number> {
  const root = mkdtempSync(join(tmpdir(), 'toolgate-demo-'));
  try {
    const workspace = join(root, 'workspace');
    mkdirSync(join(workspace, 'src'), { recursive: true });
    writeFileSync(join(workspace, 'src', 'index.ts'), 'export {};\n');
    symlinkSync('/etc', join(workspace, 'etc-link'));
    const ctx: CallContext = {
      sessionId: 'demo',
      agentId: 'demo-agent',
      cwd: workspace,
      workspace,
      home: join(root, 'home'),
      env: { HOME: join(root, 'home') },
    };
    const guard = createGuard({ plugins: [workspaceOnly()] });
    const calls = [
      { tool: 'read_file', args: { path: 'src/index.ts' } },
      { tool: 'write_file', args: { path: 'src/new.ts', content: 'x' } },
      { tool: 'read_file', args: { path: '~/.ssh/id_rsa' } },
      { tool: 'read_file', args: { path: 'src/../../../etc/passwd' } },
      { tool: 'read_file', args: { path: 'etc-link/passwd' } },
      { tool: 'write_file', args: { path: '$UNSET_DIR/x' } },
      { tool: 'move_file', args: { source: 'src/index.ts', destination: '/tmp/stolen.ts' } },
      { tool: 'write_file', args: { path: `${workspace}-evil/x` } },
      { tool: 'web_search', args: { query: 'toolgate' } },
      { tool: 'read_file', args: { path: 42 } },
    ];
    const rows: string[][] = [];
    for (const call of calls) {
      const d = await guard.check(call, ctx);
      const a = d.reasons[0]?.access ?? d.accesses[0];
      rows.push([
        d.action.toUpperCase(),
        call.tool,
        a ? (a.realPath ?? a.raw).replace(root, '<tmp>') : '-',
        d.reasons[0]?.reason.replace(root, '<tmp>') ?? '',
      ]);
    }
    const widths = [6, 12, 36];
    out.write(
      `${['DECISION', 'TOOL', 'PATH', 'REASON'].map((h, i) => h.padEnd(widths[i] ?? 0)).join('  ')}\n`,
    );
    for (const r of rows) out.write(`${r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ')}\n`);
    return 0;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('Run a scripted agent session through a composed guard and print each decision')
    .action(async () => {
      process.exitCode = await runDemo();
    });
}
