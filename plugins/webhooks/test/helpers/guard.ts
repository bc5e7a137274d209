import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallContext, createGuard, type GuardPlugin, isWithin } from '@toolgate/core';

/** A tiny real policy: paths in `args.path` must be inside the workspace; `/etc` is critical by core's severity. */
export function workspacePolicy(): GuardPlugin {
  return {
    name: 'workspace-policy',
    policy: true,
    apply(hooks) {
      hooks.collectAccesses.tap('extract', (accesses, call, state) => {
        const raw = call.args.path;
        if (typeof raw !== 'string') return accesses;
        return [
          ...accesses,
          state.access(raw, call.tool.startsWith('read') ? 'read' : 'write', { origin: 'args.path' }),
        ];
      });
      hooks.beforeToolCall.tap('judge', (_call, state) => {
        for (const a of state.accesses) {
          if (a.realPath !== null && !isWithin(a.realPath, state.ctx.workspace)) {
            if (state.ctx.env.PROMPT_OUTSIDE === '1')
              return {
                action: 'prompt',
                code: 'PATH_PROMPT',
                reason: 'outside the workspace: needs approval',
                access: a,
              };
            return {
              action: 'deny',
              code: 'PATH_DENIED',
              reason: 'path outside allowed scope',
              access: a,
              allowedPaths: [state.ctx.workspace],
            };
          }
        }
        return undefined;
      });
    },
  };
}

export function tempDir(prefix = 'toolgate-webhooks-'): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function context(root: string, env: Record<string, string> = {}): CallContext {
  return {
    sessionId: 's1',
    agentId: 'agent-research-bot',
    cwd: root,
    workspace: root,
    home: join(root, 'home'),
    env: { USER: 'user-123', ...env },
  };
}

export { createGuard };
