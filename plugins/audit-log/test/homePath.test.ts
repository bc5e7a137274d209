import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createGuard } from '@toolgate/core';
import { afterEach, describe, expect, it } from 'vitest';
import { auditLog, getStats, queryViolations } from '../src/index.js';
import { context, tempDir, workspacePolicy } from './helpers.js';

const saved = { home: process.env.HOME, cwd: process.cwd() };
afterEach(() => {
  process.env.HOME = saved.home;
  process.chdir(saved.cwd);
});

describe('~ in the trail path', () => {
  it("seed 001's \"auditLogPath: '~/.wunderland/security/violations.log'\" is in the home directory, never ./~/", async () => {
    const home = tempDir();
    const elsewhere = tempDir();
    process.env.HOME = home;
    process.chdir(elsewhere);
    const file = '~/.wunderland/security/violations.log';
    const audit = auditLog({ file });
    const guard = createGuard({ plugins: [workspacePolicy(), audit] });
    const root = tempDir();
    await guard.check({ tool: 'write_file', args: { path: '/etc/passwd' } }, context(root));
    await audit.flush?.();
    const real = join(home, '.wunderland', 'security', 'violations.log');
    expect(audit.file).toBe(real);
    expect(readFileSync(real, 'utf8')).toContain('/etc/passwd');
    expect(existsSync(join(elsewhere, '~'))).toBe(false);
    expect((await queryViolations({ file })).length).toBe(1);
    expect((await getStats({ file })).total).toBe(1);
  });
});
