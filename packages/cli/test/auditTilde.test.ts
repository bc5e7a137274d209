import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditLog } from '@toolgate/audit-log';
import { type CallContext, createGuard, type GuardPlugin } from '@toolgate/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

// Issue 25, item 7: `audit query|stats|verify --file '~/…'` — a quoted tilde the shell did not expand —
// reads the trail under HOME, not a directory named `~` in the cwd.
let root: string;
let home: string;
const denyAll: GuardPlugin = {
  name: 'deny-all',
  policy: true,
  apply(hooks) {
    hooks.beforeToolCall.tap('deny-all', () => ({ action: 'deny', code: 'PATH_DENIED', reason: 'no' }));
  },
};

beforeAll(async () => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-audit-tilde-')));
  home = join(root, 'home');
  mkdirSync(join(home, 'logs'), { recursive: true });
  const audit = auditLog({ file: join(home, 'logs', 'trail.log'), level: 'all' });
  const guard = createGuard({ plugins: [denyAll, audit] });
  const ctx: CallContext = { sessionId: 's', agentId: 'bot', cwd: root, workspace: root, home, env: {} };
  for (const path of ['/etc/passwd', '/etc/shadow'])
    await guard.check({ tool: 'read_file', args: { path } }, ctx);
  audit.flush();
  audit.close();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

it('expands a quoted ~ in --file (query, stats, verify) and in $TOOLGATE_AUDIT_FILE', () => {
  const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => runCli(args, { cwd: root, home, env });
  const query = cli(['audit', 'query', '--file', '~/logs/trail.log', '--json']);
  expect(query.code, query.stderr).toBe(0);
  expect(query.stdout.trim().split('\n')).toHaveLength(2);
  const stats = cli(['audit', 'stats', '--file', '~/logs/trail.log', '--json']);
  expect(stats.code, stats.stderr).toBe(0);
  expect(JSON.parse(stats.stdout).total).toBe(2);
  const verify = cli(['audit', 'verify', '--file', '~/logs/trail.log']);
  expect(verify.code, verify.stderr).toBe(0);
  expect(verify.stdout).toMatch(/^ok: 2 records/);
  const fromEnv = cli(['audit', 'query', '--json'], { TOOLGATE_AUDIT_FILE: '~/logs/trail.log' });
  expect(fromEnv.stdout.trim().split('\n')).toHaveLength(2);
  // A user that does not exist is an error naming the flag, not an empty answer.
  const nobody = cli(['audit', 'query', '--file', '~tg-no-such-user/trail.log']);
  expect(nobody.code).toBe(2);
  expect(nobody.stderr).toMatch(/--file "~tg-no-such-user\/trail\.log"/);
});
