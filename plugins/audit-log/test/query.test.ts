import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { createGuard } from '@toolgate/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditLog, getStats, queryViolations } from '../src/index.js';
import { context, tempDir, workspacePolicy } from './helpers.js';

describe('queryViolations and getStats over current and rotated files', () => {
  const root = tempDir();
  const file = join(root, 'violations.log');
  let midpoint = 0;
  beforeAll(async () => {
    const guard = createGuard({
      plugins: [workspacePolicy(), auditLog({ file, level: 'all', maxSize: 2048 })],
    });
    const a = context(root, { agentId: 'agent-a', sessionId: 'sa' });
    const b = context(root, { agentId: 'agent-b', sessionId: 'sb' });
    await guard.check({ tool: 'write_file', args: { path: '/etc/passwd' } }, a); // critical
    await guard.check({ tool: 'read_file', args: { path: '/home/u/.ssh/id_rsa' } }, a); // high
    await new Promise((r) => setTimeout(r, 5));
    midpoint = Date.now();
    await new Promise((r) => setTimeout(r, 5));
    await guard.check({ tool: 'write_file', args: { path: '/srv/data/x' } }, b); // medium
    await guard.check({ tool: 'read_file', args: { path: '/srv/data/y' } }, b); // low
    await guard.check({ tool: 'write_file', args: { path: join(root, 'fine.txt') } }, b); // allow
    appendFileSync(file, 'not json, a foreign line\n');
  });

  it('reads rotated files too, oldest first', async () => {
    const all = await queryViolations({ file });
    expect(all.map((r) => r.attemptedPath)).toEqual([
      '/etc/passwd',
      '/home/u/.ssh/id_rsa',
      '/srv/data/x',
      '/srv/data/y',
    ]);
  });

  it('filters by agent, session, severity, tool, decision, code and time range', async () => {
    expect((await queryViolations({ file, agentId: 'agent-b' })).map((r) => r.severity)).toEqual([
      'medium',
      'low',
    ]);
    expect(await queryViolations({ file, sessionId: 'sa', severity: 'critical' })).toHaveLength(1);
    expect(await queryViolations({ file, severity: ['critical', 'high'] })).toHaveLength(2);
    expect(await queryViolations({ file, tool: 'read_file' })).toHaveLength(2);
    expect((await queryViolations({ file, decision: 'allow' })).map((r) => r.level)).toEqual(['DECISION']);
    expect(await queryViolations({ file, code: 'PATH_DENIED', startTime: new Date(midpoint) })).toHaveLength(
      2,
    );
    expect(await queryViolations({ file, endTime: new Date(midpoint).toISOString() })).toHaveLength(2);
  });

  it('path globs match by component, dotfiles included', async () => {
    expect((await queryViolations({ file, path: '/home/**' })).map((r) => r.attemptedPath)).toEqual([
      '/home/u/.ssh/id_rsa',
    ]);
    expect(await queryViolations({ file, path: '/etc*/**' })).toHaveLength(1);
    expect(await queryViolations({ file, path: '/srv/data/*' })).toHaveLength(2);
  });

  it('limit keeps the most recent matches', async () => {
    expect((await queryViolations({ file, limit: 2 })).map((r) => r.attemptedPath)).toEqual([
      '/srv/data/x',
      '/srv/data/y',
    ]);
    await expect(queryViolations({ file, limit: 0 })).rejects.toThrow(
      /limit must be a positive integer, got 0/,
    );
    await expect(queryViolations({ file, startTime: 'yesterday-ish' })).rejects.toThrow(
      /startTime is not a valid time/,
    );
  });

  it('stats count every record of a range by severity, agent, tool and decision', async () => {
    const stats = await getStats({ file });
    expect(stats).toEqual({
      total: 5,
      bySeverity: { critical: 1, high: 1, medium: 2, low: 1 },
      byAgent: { 'agent-a': 2, 'agent-b': 3 },
      byTool: { write_file: 3, read_file: 2 },
      byDecision: { deny: 4, allow: 1 },
      invalid: 1,
    });
    const later = await getStats({ file, start: new Date(midpoint), end: new Date(Date.now() + 1000) });
    expect(later.total).toBe(3);
  });

  it('a missing trail is empty, not an error', async () => {
    expect(await queryViolations({ file: join(root, 'none.log') })).toEqual([]);
    expect((await getStats({ file: join(root, 'none.log') })).total).toBe(0);
  });
});
