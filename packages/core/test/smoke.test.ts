import { describe, expect, it } from 'vitest';
import { createGuard, type GuardPlugin } from '@toolgate/core';

const ctx = { sessionId: 's', agentId: 'a', cwd: '/tmp', workspace: '/tmp', home: '/root', env: {} };

describe('smoke', () => {
  it('denies via a plugin', async () => {
    const p: GuardPlugin = {
      name: 'p',
      apply(hooks) {
        hooks.collectAccesses.tap('p', (acc, call, state) => [...acc, state.access(String(call.args.path), 'read', { origin: 'p' })]);
        hooks.beforeToolCall.tap('p', (_c, state) =>
          state.accesses.some((a) => a.realPath?.startsWith('/etc')) ? { action: 'deny', code: 'PATH_DENIED', reason: 'no', access: state.accesses[0] } : undefined,
        );
      },
    };
    const g = createGuard({ plugins: [p] });
    const d = await g.check({ tool: 'read_file', args: { path: '/etc/passwd' } }, ctx);
    expect(d.action).toBe('deny');
    expect(d.envelope?.code).toBe('PATH_DENIED');
    const d2 = await g.check({ tool: 'read_file', args: { path: 'x' } }, ctx);
    expect(d2.action).toBe('allow');
  });
});
