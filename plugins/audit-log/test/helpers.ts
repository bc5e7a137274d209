import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallContext, type GuardPlugin, isWithin } from '@toolgate/core';

export function tempDir(): string {
  return realpathSync(mkdtempSync(join(tmpdir(), 'tg-audit-')));
}

export function context(root: string, over: Partial<CallContext> = {}): CallContext {
  return { sessionId: 's1', agentId: 'agent-1', cwd: root, workspace: root, home: root, env: {}, ...over };
}

/**
 * A small real policy: `path` (and `paths[]`) args are accesses; anything outside the workspace is denied,
 * anything under `<workspace>/ask` needs approval. Tools named `read*` read, the rest write.
 */
export function workspacePolicy(): GuardPlugin {
  return {
    name: 'ws-policy',
    policy: true,
    apply(hooks) {
      hooks.collectAccesses.tap('x', (accesses, call, state) => {
        const op = call.tool.startsWith('read') ? 'read' : 'write';
        const raws = [call.args.path, ...(Array.isArray(call.args.paths) ? call.args.paths : [])];
        const out = [...accesses];
        for (const raw of raws)
          if (typeof raw === 'string') out.push(state.access(raw, op, { origin: 'args' }));
        return out;
      });
      hooks.beforeToolCall.tap('x', (_call, state) => {
        for (const a of state.accesses) {
          if (a.realPath !== null && !isWithin(a.realPath, state.ctx.workspace)) {
            return {
              action: 'deny',
              code: 'PATH_DENIED',
              reason: 'path outside allowed scope',
              access: a,
              rule: {
                plugin: 'ws-policy',
                pattern: '<workspace>/**',
                access: 'write',
                source: 'toolgate:/etc/toolgate/policy.yaml#rules[0]',
              },
            };
          }
          if (a.realPath !== null && isWithin(a.realPath, join(state.ctx.workspace, 'ask'))) {
            state.prompt({ action: 'prompt', code: 'PATH_PROMPT', reason: 'needs approval', access: a });
          }
        }
        return undefined;
      });
    },
  };
}

/** An approver that answers every prompt the same way, as `by`. */
export function approver(approved: boolean, by: string): GuardPlugin {
  return {
    name: `approver-${by}`,
    apply(hooks) {
      hooks.onPrompt.tap('x', () => ({ approved, by, reason: approved ? 'ok' : 'refused' }));
    },
  };
}
