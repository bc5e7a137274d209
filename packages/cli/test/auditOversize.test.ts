import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  closeSync,
  ftruncateSync,
  mkdtempSync,
  openSync,
  realpathSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { auditLog } from '@toolgate/audit-log';
import { createGuard, type GuardPlugin } from '@toolgate/core';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const denyAll: GuardPlugin = {
  name: 'deny-all',
  policy: true,
  apply(hooks) {
    hooks.beforeToolCall.tap('x', () => ({ action: 'deny', code: 'PATH_DENIED', reason: 'denied' }));
  },
};

// issue 14: a line past V8's string limit (~512 MiB) made `audit verify` throw a RangeError stack. The line
// here is 520 MiB of a sparse file (no disk used): verify streams it, reports it and exits 1.
describe('audit verify on a line past the string limit', () => {
  it('reports the oversize line with its number and size, no stack, exit 1', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'tg-oversize-')));
    const file = join(dir, 'violations.log');
    const audit = auditLog({ file });
    const guard = createGuard({ plugins: [denyAll, audit] });
    const ctx = { sessionId: 's', agentId: 'a', cwd: dir, workspace: dir, home: dir, env: {} };
    await guard.check({ tool: 'write_file', args: { path: '/etc/x' } }, ctx);
    audit.close();
    const size = statSync(file).size;
    const fd = openSync(file, 'r+');
    ftruncateSync(fd, size + 520 * 1024 * 1024);
    closeSync(fd);
    appendFileSync(file, '\n');
    const r = spawnSync(process.execPath, [bin, 'audit', 'verify', '--file', file], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.stderr).not.toMatch(/RangeError|at .*\.js/);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(
      /BROKEN at .*violations\.log:2: the line is 545259520 bytes long, over the 16777216-byte limit/,
    );
  }, 60_000);
});
