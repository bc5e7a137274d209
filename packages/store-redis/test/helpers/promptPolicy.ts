import type { Access, GuardPlugin } from '@toolgate/core';
import { Stage } from '@toolgate/core';

/**
 * A tiny policy for these tests: `write_file {path}` is a write that always needs approval (prompt tier);
 * `read_file {path}` is allowed. Real accesses (core's resolver), so grants work on real paths.
 */
export function promptPolicy(): GuardPlugin {
  return {
    name: 'prompt-policy',
    policy: true,
    apply(hooks) {
      hooks.collectAccesses.tap({ stage: Stage.EXTRACT }, (accesses, call, state) => {
        if (call.tool !== 'write_file' && call.tool !== 'read_file') return accesses;
        const op = call.tool === 'write_file' ? 'write' : 'read';
        const added: Access = state.access(String(call.args.path), op, {
          origin: `prompt-policy:${call.tool}`,
        });
        return [...accesses, added];
      });
      hooks.beforeToolCall.tap({ stage: Stage.POLICY }, (call, state) => {
        if (call.tool !== 'write_file') return undefined;
        for (const access of state.accesses)
          state.prompt({
            code: 'PATH_PROMPT',
            reason: 'writes need approval',
            access,
            rule: { plugin: 'prompt-policy', pattern: '/**', access: 'prompt' },
          });
        return undefined;
      });
    },
  };
}
