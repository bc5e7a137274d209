import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { approvals, autoDeny } from '@toolgate/approvals';
import { auditLog, getStats, verifyChain } from '@toolgate/audit-log';
import { type CallContext, createGuard, type Decision, type GuardPlugin } from '@toolgate/core';
import { folderRules, loadPolicy } from '@toolgate/folder-rules';
import { createGateway, elicitationApprover, requireAbsolutePaths } from '@toolgate/mcp';
import { shell } from '@toolgate/shell';
import { type DemoCall, demoCalls } from './demoCalls.js';
import { demoWorkspace } from './demoWorkspace.js';
import { renderTable } from './renderTable.js';
import { linkedTransports, ScriptedClient } from './scriptedClient.js';

// The real MCP filesystem server, a dependency of this package (not a devDependency of another one), so the
// demo runs wherever `toolgate` is installed: no network, no global install.
function filesystemServer(): string {
  return createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
}

/** Records every decision in order, so each row can show the verdict, the code and who approved. */
function recorder(decisions: Decision[]): GuardPlugin {
  return {
    name: 'demo-recorder',
    apply: (hooks) => hooks.onDecision.tap('record', (d) => void decisions.push(d)),
  };
}

function row(
  call: DemoCall,
  decision: Decision | undefined,
  outcome: string,
  hide: (s: string) => string,
): string[] {
  const shown =
    call.tool === 'bash'
      ? String(call.args.command)
      : String(
          call.args.path ??
            call.args.destination ??
            (call.args.paths as string[] | undefined)?.join(', ') ??
            '',
        );
  const verdict = !decision
    ? '?'
    : decision.verdict === 'prompt'
      ? `${decision.action.toUpperCase()} (asked)`
      : decision.action.toUpperCase();
  const reason = decision?.reasons[0];
  return [verdict, call.tool, hide(shown), reason?.code ?? '', call.story, hide(outcome)];
}

/**
 * The real thing, self-contained: the MCP gateway in front of the real filesystem server on a temp
 * workspace, a composed guard (folder-rules, shell, audit-log, approvals, elicitation), and a scripted
 * client making a dozen calls. Prints a table of decisions and the audit summary.
 */
export async function runDemo(out: NodeJS.WritableStream = process.stdout): Promise<number> {
  const w = demoWorkspace();
  const hide = (s: string) => s.replaceAll(w.root, '/tmp/demo');
  const decisions: Decision[] = [];
  try {
    const ctx: CallContext = {
      sessionId: 'demo-session',
      agentId: 'demo-agent',
      cwd: w.ws,
      workspace: w.ws,
      home: w.home,
      env: { HOME: w.home },
    };
    const elicitation = elicitationApprover();
    const guard = createGuard({
      plugins: [
        folderRules({ policy: loadPolicy({ dialect: 'toolgate', file: w.policy, env: { HOME: w.home } }) }),
        shell(),
        requireAbsolutePaths(),
        elicitation,
        approvals({ strategy: autoDeny({ reason: 'no human on duty' }) }),
        auditLog({ file: w.audit, level: 'all' }),
        recorder(decisions),
      ],
    });
    const gateway = createGateway({
      guard,
      ctx,
      elicitation,
      upstream: {
        command: process.execPath,
        args: [filesystemServer(), w.root],
        env: { HOME: w.home },
        cwd: w.ws,
        stderr: 'ignore',
      },
      onError: (e) => out.write(`gateway: ${e.message}\n`),
    });
    const [clientSide, gatewaySide] = linkedTransports();
    await gateway.connect(gatewaySide);
    const client = new ScriptedClient(clientSide);
    // The scripted human: approves the release notes, declines anything else it is asked about.
    client.on('elicitation/create', (params) =>
      String(params.message).includes('release.txt')
        ? { action: 'accept', content: { approve: true } }
        : { action: 'decline' },
    );
    await client.start();
    await client.initialize({ elicitation: {} });
    const listed = (await client.request('tools/list')).result as {
      tools: Array<{ name: string; description?: string }>;
    };

    const rows: string[][] = [];
    for (const call of demoCalls(w)) {
      const before = decisions.length;
      let outcome: string;
      if (call.via === 'shell') {
        const d = await guard.check({ tool: call.tool, args: call.args }, ctx);
        outcome = d.action === 'allow' ? 'would run (guard.check only)' : 'blocked';
      } else {
        const response = await client.request('tools/call', { name: call.tool, arguments: call.args });
        const result = response.result as
          | { isError?: boolean; content?: Array<{ text?: string }> }
          | undefined;
        const text =
          result?.content?.map((c) => c.text ?? '').join(' ') ??
          String((response.error as { message?: string } | undefined)?.message ?? '');
        // A denied call gets the envelope from the gateway; the server never saw it.
        outcome = result?.isError
          ? text.startsWith('{')
            ? 'blocked, envelope to model'
            : `server error: ${text}`
          : `ran: ${text.split('\n')[0] ?? ''}`;
      }
      rows.push(row(call, decisions[before], outcome.replace(/\s+/g, ' '), hide));
    }
    await gateway.close();

    out.write(
      `toolgate demo — MCP gateway in front of @modelcontextprotocol/server-filesystem (workspace ${hide(w.ws)})\n`,
    );
    out.write(
      `tools/list: ${listed.tools.length} tools shown; descriptions carry the allowed roots: ${listed.tools[0]?.description?.includes(w.ws) ? 'yes' : 'no'}\n\n`,
    );
    out.write(
      `${renderTable(['DECISION', 'TOOL', 'PATH / COMMAND', 'CODE', 'WHAT', 'RESULT'], rows, 34)}\n\n`,
    );

    const stats = await getStats({ file: w.audit });
    const chain = await verifyChain(w.audit);
    const counts = (m: Record<string, number>) =>
      Object.entries(m)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
    out.write(
      `audit trail: ${stats.total} records (${counts(stats.byDecision)}); severity: ${counts(stats.bySeverity)}; hash chain: ${chain.ok ? 'intact' : 'BROKEN'}\n`,
    );
    return 0;
  } finally {
    rmSync(w.root, { recursive: true, force: true });
  }
}
