import type { CallContext, GuardPlugin, PluginHooks, ToolCall } from '@toolgate/core';

export const ctx = (over: Partial<CallContext> = {}): CallContext => ({
  sessionId: 's1',
  agentId: 'agent',
  cwd: '/ws',
  workspace: '/ws',
  home: '/home/u',
  env: {},
  ...over,
});

export const call = (
  tool = 'read_file',
  args: Record<string, unknown> = { path: '/ws/a.txt' },
): ToolCall => ({ tool, args });

/** A plugin from a bare apply function. */
export const plugin = (name: string, apply: (hooks: PluginHooks) => void): GuardPlugin => ({ name, apply });

/** Extracts `args.path` as a read access (a minimal extractor so policies have something to judge). */
export const pathExtractor = (): GuardPlugin =>
  plugin('extract', (hooks) => {
    hooks.collectAccesses.tap('extract', (acc, c, state) =>
      typeof c.args.path === 'string'
        ? [...acc, state.access(c.args.path, 'read', { origin: 'test:args.path' })]
        : acc,
    );
  });

/** Denies any access whose real path is under `root`. */
export const denyUnder = (root: string, name = 'deny-under'): GuardPlugin => ({
  ...plugin(name, (hooks) => {
    hooks.beforeToolCall.tap('p', (_c, state) => {
      const a = state.accesses.find((x) => x.realPath === root || x.realPath?.startsWith(`${root}/`));
      return a
        ? { action: 'deny', code: 'PATH_DENIED', reason: `under ${root}`, access: a, allowedPaths: ['/ws'] }
        : undefined;
    });
  }),
  policy: true,
});

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
