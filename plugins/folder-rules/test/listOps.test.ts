import { createAccess } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { evaluatorFor, folderRules } from '../src/index.js';

// Listing a directory is judged as a read of it: a rule limited to reads (`ops: [read]`, Hermes'
// allowed_read_paths) governs listings too — before, a read-only deny did not stop `ls` of the directory.
const ctx = { sessionId: 's', agentId: 'a', cwd: '/ws', workspace: '/ws', home: '/home/u', env: {} };

describe('ops: [read] rules apply to list accesses', () => {
  const plugin = folderRules({
    rules: [
      { pattern: '<workspace>/**', access: 'write' },
      { pattern: '<workspace>/secrets/**', access: 'deny', ops: ['read'] },
      { pattern: '/opt/tools/**', access: 'read', ops: ['read'] },
    ],
    default: 'deny',
  });
  const ev = evaluatorFor(plugin.compiled, ctx);
  const judge = (path: string, op: 'read' | 'write' | 'list') =>
    ev.evaluate(createAccess(path, op, ctx, { origin: 'test' })).decision;

  it('a read-only deny denies listing the directory and reading in it, not writing', () => {
    expect(judge('/ws/secrets', 'list')).toBe('deny');
    expect(judge('/ws/secrets/key', 'read')).toBe('deny');
    expect(judge('/ws/secrets/key', 'write')).toBe('allow');
    expect(judge('/ws/src', 'list')).toBe('allow');
  });

  it('a read-only grant allows listing as it allows reading', () => {
    expect(judge('/opt/tools/bin', 'list')).toBe('allow');
    expect(judge('/opt/tools/bin/x', 'read')).toBe('allow');
    expect(judge('/opt/tools/bin/x', 'write')).toBe('deny');
  });
});

describe('inline rules are checked like policy files', () => {
  it('an unknown field or a bad ops/vector is an error naming it, never ignored', () => {
    expect(() =>
      folderRules({ rules: [{ pattern: '/x/**', access: 'read', opz: ['read'] } as never] }),
    ).toThrow(/rules\[0\]\.opz/);
    expect(() =>
      folderRules({ rules: [{ pattern: '/x/**', access: 'read', ops: ['list' as never] }] }),
    ).toThrow(/rules\[0\]\.ops/);
    expect(() =>
      folderRules({ rules: [{ pattern: '/x/**', access: 'read', vector: 'mcp' as never }] }),
    ).toThrow(/rules\[0\]\.vector/);
  });
});
