import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditLog } from '@toolgate/audit-log';
import { type CallContext, createGuard } from '@toolgate/core';
import { folderRules } from '@toolgate/folder-rules';
import { shell } from '@toolgate/shell';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// The list operation and existence-aware subtrees through the public API of every package that sees
// them: the shell extracts, folder-rules walks and judges, the audit trail records what decided.
let root: string;
let ws: string;
let home: string;
let trail: string;
let ctx: CallContext;

const rules = () => [
  { pattern: '<workspace>/**', access: 'write' as const },
  { pattern: '/tmp/**', access: 'write' as const },
  { pattern: '~/**', access: 'read' as const },
  { pattern: '/usr/**', access: 'read' as const },
  { pattern: '/etc/**', access: 'read' as const },
  { pattern: '/etc/shadow', access: 'deny' as const },
  { pattern: '~/.ssh/**', access: 'deny' as const },
  { pattern: '**/.env', access: 'deny' as const },
];

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-int-list-')));
  home = join(root, 'home');
  ws = join(home, 'ws');
  trail = join(root, 'audit', 'violations.log');
  mkdirSync(join(ws, 'src'), { recursive: true });
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(ws, 'src', 'a.ts'), 'export {}');
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'k');
  ctx = { sessionId: 's', agentId: 'a', cwd: ws, workspace: ws, home, env: { HOME: home } };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const guard = () =>
  createGuard({ plugins: [shell(), folderRules({ rules: rules() }), auditLog({ file: trail })] });
const records = () =>
  readFileSync(trail, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('list and subtrees end to end', () => {
  it('MCP directory_tree of ~ is a list: denied for ~/.ssh, recorded as a list of that directory', async () => {
    const d = await guard().check({ tool: 'mcp__filesystem__directory_tree', args: { path: home } }, ctx);
    expect(d.action).toBe('deny');
    expect(d.envelope).toMatchObject({ operation: 'list', path: join(home, '.ssh') });
    const [r] = records();
    expect(r).toMatchObject({ operation: 'list', attemptedPath: join(home, '.ssh') });
    expect(String(r?.reason)).toContain(`would list ${join(home, '.ssh')}`);
  });

  it('MCP search_files of the workspace holding a .env is a list (names only): allowed', async () => {
    writeFileSync(join(ws, '.env'), 'KEY=1');
    const d = await guard().check(
      { tool: 'mcp__filesystem__search_files', args: { path: ws, pattern: '*.ts' } },
      ctx,
    );
    expect(d.action).toBe('allow');
    expect(d.accesses[0]).toMatchObject({ op: 'list', scope: 'subtree' });
  });

  it('get_file_info and list_directory are lists of one path', async () => {
    const g = guard();
    const info = await g.check({ tool: 'get_file_info', args: { path: join(ws, 'src', 'a.ts') } }, ctx);
    expect(info.accesses[0]).toMatchObject({ op: 'list', scope: 'path' });
    expect(info.action).toBe('allow');
    const ls = await g.check({ tool: 'list_directory', args: { path: join(home, '.ssh') } }, ctx);
    expect(ls.action).toBe('deny');
    expect(ls.envelope?.operation).toBe('list');
  });

  it('twins through the shell: grep -r and tar of the workspace allow without .env, deny naming it with one', async () => {
    const g = guard();
    const grep = { tool: 'Bash', args: { command: 'grep -r KEY .' } };
    const tar = { tool: 'Bash', args: { command: 'tar czf /tmp/tg-int-a.tgz .' } };
    expect((await g.check(grep, ctx)).action).toBe('allow');
    expect((await g.check(tar, ctx)).action).toBe('allow');
    writeFileSync(join(ws, 'src', '.env'), 'KEY=1');
    const d = await g.check(grep, ctx);
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.reason).toBe(
      `grep would read ${join(ws, 'src', '.env')}: path matches deny rule **/.env`,
    );
    expect(d.envelope?.path).toBe(join(ws, 'src', '.env'));
    const t = await g.check(tar, ctx);
    expect(t.action).toBe('deny');
    expect(t.envelope?.path).toBe(join(ws, 'src', '.env'));
  });
});
