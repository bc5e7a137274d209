import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { approvals, type DeskStrategy, desk } from '@toolgate/approvals';
import { auditLog } from '@toolgate/audit-log';
import { type CallContext, createGuard, type Guard } from '@toolgate/core';
import { explain, folderRules, formatExplain, loadPolicy } from '@toolgate/folder-rules';
import { shell } from '@toolgate/shell';
import {
  type DecisionStream,
  decisionStream,
  type ExplainInput,
  startConsole,
  type WebConsole,
} from '../../src/index.js';

/** A real guard (folder-rules + shell + audit trail + approvals on a desk) and the console beside it. */
export interface Stack {
  root: string;
  ws: string;
  auditFile: string;
  guard: Guard;
  desk: DeskStrategy;
  stream: DecisionStream;
  web: WebConsole;
  ctx(agentId: string, sessionId: string): CallContext;
  close(): Promise<void>;
}

export async function startStack(timeoutMs = 60_000): Promise<Stack> {
  const root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-console-')));
  const ws = join(root, 'ws');
  mkdirSync(join(ws, 'secrets'), { recursive: true });
  mkdirSync(join(ws, 'src'), { recursive: true });
  writeFileSync(join(ws, 'src', 'a.ts'), 'export {};\n');
  const home = join(root, 'home');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  const source = [
    'version: 1',
    'default: deny',
    'rules:',
    '  - { pattern: "<workspace>/**", access: write, description: workspace }',
    '  - { pattern: "<workspace>/secrets/**", access: prompt, description: secrets need a person }',
    '  - { pattern: "~/.ssh/**", access: deny }',
  ].join('\n');
  const policy = loadPolicy({ dialect: 'toolgate', file: join(root, 'toolgate.yaml'), source });
  const auditFile = join(root, 'audit.jsonl');
  const d = desk();
  const stream = decisionStream({ flushMs: 50 });
  const guard = createGuard({
    plugins: [
      shell(),
      folderRules({ policy }),
      auditLog({ file: auditFile, level: 'all' }),
      approvals({ strategy: d, timeoutMs }),
      stream,
    ],
  });
  const ctx = (agentId: string, sessionId: string): CallContext => ({
    agentId,
    sessionId,
    cwd: ws,
    workspace: ws,
    home,
    env: { HOME: home },
  });
  // Explain runs on its own guard (no trail, no approvals): explaining a call must not record or ask.
  const explainGuard = createGuard({ plugins: [shell(), folderRules({ policy })] });
  const explainFn = async (input: ExplainInput) => {
    const call =
      'call' in input
        ? input.call
        : { tool: input.op === 'write' ? 'write_file' : 'read_file', args: { path: input.path } };
    const r = await explain({ guard: explainGuard, policy }, call, ctx('console', 'explain'));
    return { decision: r.decision, text: formatExplain(r) };
  };
  const web = await startConsole({
    desk: d,
    decisions: stream,
    audit: { file: auditFile },
    explain: explainFn,
    operator: 'ann (console)',
  });
  return {
    root,
    ws,
    auditFile,
    guard,
    desk: d,
    stream,
    web,
    ctx,
    async close() {
      await web.close();
      stream.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
