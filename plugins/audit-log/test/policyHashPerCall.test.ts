import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createGuard, type ToolCall } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { auditLog } from '../src/index.js';
import { context, tempDir, workspacePolicy } from './helpers.js';

describe('auditLog: policyHash per call', () => {
  it('a policyHash function is told which decision and call it records (a host swapping policies)', async () => {
    const root = tempDir();
    const file = join(root, 'trail.log');
    // Which policy judged which call: what a host swapping guards between calls knows.
    const judgedBy = new WeakMap<ToolCall, string>();
    const seen: string[] = [];
    const guard = createGuard({
      plugins: [
        workspacePolicy(),
        auditLog({
          file,
          level: 'all',
          policyHash: (decision, call) => {
            seen.push(decision.action);
            return judgedBy.get(call);
          },
        }),
      ],
    });
    const first: ToolCall = { tool: 'write_file', args: { path: '/etc/x' } };
    const second: ToolCall = { tool: 'write_file', args: { path: '/etc/y' } };
    judgedBy.set(first, 'sha256:v1');
    judgedBy.set(second, 'sha256:v2');
    await Promise.all([guard.check(first, context(root)), guard.check(second, context(root))]);
    const records = readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { attemptedPath: string; policyHash?: string });
    expect(records.find((r) => r.attemptedPath === '/etc/x')?.policyHash).toBe('sha256:v1');
    expect(records.find((r) => r.attemptedPath === '/etc/y')?.policyHash).toBe('sha256:v2');
    expect(seen).toEqual(['deny', 'deny']);
  });
});
