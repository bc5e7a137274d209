import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createGuard } from '@toolgate/core';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { auditLog } from '../src/index.js';
import { context, tempDir, workspacePolicy } from './helpers.js';

const count = (file: string) =>
  existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0;

describe('durability modes and shipping', () => {
  it("'async' writes on the next turn of the event loop, off the decision", async () => {
    const root = tempDir();
    const file = join(root, 'v.log');
    const audit = auditLog({ file, durability: 'async' });
    const guard = createGuard({ plugins: [workspacePolicy(), audit] });
    await guard.check({ tool: 'write_file', args: { path: '/etc/a' } }, context(root));
    expect(audit.counters.buffered).toBe(1);
    await new Promise((r) => setImmediate(r));
    expect(count(file)).toBe(1);
    expect(audit.counters).toMatchObject({ written: 1, buffered: 0 });
  });

  it("'fsync' writes and syncs before check() resolves", async () => {
    const root = tempDir();
    const file = join(root, 'v.log');
    const guard = createGuard({ plugins: [workspacePolicy(), auditLog({ file, durability: 'fsync' })] });
    await guard.check({ tool: 'write_file', args: { path: '/etc/a' } }, context(root));
    expect(count(file)).toBe(1);
  });

  it('a pino destination in `ship` gets every record; a failing one changes nothing locally', async () => {
    const root = tempDir();
    const file = join(root, 'v.log');
    const shipped = join(root, 'shipped.log');
    const broken = {
      write() {
        throw new Error('collector down');
      },
    };
    const guard = createGuard({
      plugins: [
        workspacePolicy(),
        auditLog({ file, ship: [broken, pino.destination({ dest: shipped, sync: true })] }),
      ],
    });
    const d = await guard.check({ tool: 'write_file', args: { path: '/etc/a' } }, context(root));
    expect(d.action).toBe('deny');
    expect(count(file)).toBe(1);
    expect(JSON.parse(readFileSync(shipped, 'utf8'))).toMatchObject({
      level: 'SECURITY_VIOLATION',
      decisionId: d.id,
    });
  });
});
