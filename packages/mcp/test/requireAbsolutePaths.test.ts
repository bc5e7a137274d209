import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallContext, createGuard, type GuardPlugin } from '@toolgate/core';
import { afterAll, describe, expect, it } from 'vitest';
import { requireAbsolutePaths } from '../src/index.js';

const root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-abs-')));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const ctx: CallContext = {
  sessionId: 's',
  agentId: 'a',
  cwd: root,
  workspace: root,
  home: root,
  env: { HOME: root },
};

// Extracts `args.path` as an access; with `shell: true` it claims the call the way the shell plugin does.
function extractor(claimShell: boolean): GuardPlugin {
  return {
    name: 'extract',
    policy: true,
    apply(hooks) {
      hooks.collectAccesses.tap('x', (accesses, call, state) => {
        if (claimShell) state.claim('shell');
        return typeof call.args.path === 'string'
          ? [...accesses, state.access(call.args.path, 'read', { origin: 'args.path' })]
          : accesses;
      });
      hooks.beforeToolCall.tap('x', () => undefined);
    },
  };
}

describe('requireAbsolutePaths', () => {
  const guard = createGuard({ plugins: [extractor(false), requireAbsolutePaths()] });
  it.each(['a.txt', './a.txt', '../x', '$HOME/a', '${HOME}/a', '~root/a', '<workspace>/a'])(
    'denies %s (PATH_UNCERTAIN)',
    async (path) => {
      const d = await guard.check({ tool: 'read_file', args: { path } }, ctx);
      expect(d.action).toBe('deny');
      expect(d.envelope?.code).toBe('PATH_UNCERTAIN');
      expect(d.envelope?.hint).toBe('Use an absolute path.');
    },
  );

  it.each([join(root, 'a.txt'), '~', '~/a.txt', '/etc/hosts'])(
    'lets %s through to the policy',
    async (path) => {
      expect((await guard.check({ tool: 'read_file', args: { path } }, ctx)).action).toBe('allow');
    },
  );

  it('leaves shell commands to the shell plugin (it resolves against the command cwd)', async () => {
    const withShell = createGuard({ plugins: [extractor(true), requireAbsolutePaths()] });
    expect((await withShell.check({ tool: 'bash', args: { path: 'src' } }, ctx)).action).toBe('allow');
  });
});
