import type { Access, GuardPlugin, Op, Scope } from '@toolgate/core';
import { isWithin, Stage } from '@toolgate/core';

/**
 * A tiny prompt-producing policy for these tests (folder-rules is built elsewhere). Tools:
 * `read_file {path}`, `write_file {path}`, `write_many {paths}`, `rm_r {path}` (a write to a subtree).
 * A real path under a `deny` root is denied, under a `prompt` root needs approval, anything else is allowed.
 */
export interface TestPolicyOptions {
  prompt: string[];
  deny?: string[];
}

const TOOLS: Record<string, { op: Op; scope: Scope }> = {
  read_file: { op: 'read', scope: 'path' },
  write_file: { op: 'write', scope: 'path' },
  write_many: { op: 'write', scope: 'path' },
  rm_r: { op: 'write', scope: 'subtree' },
};

export function testPolicy(options: TestPolicyOptions): GuardPlugin {
  const deny = options.deny ?? [];
  return {
    name: 'test-policy',
    policy: true,
    apply(hooks) {
      hooks.collectAccesses.tap({ stage: Stage.EXTRACT }, (accesses, call, state) => {
        const kind = TOOLS[call.tool];
        if (!kind) return accesses;
        const raws = call.tool === 'write_many' ? (call.args.paths as string[]) : [call.args.path as string];
        const added: Access[] = raws.map((raw) =>
          state.access(raw, kind.op, { origin: `test-policy:${call.tool}`, scope: kind.scope }),
        );
        return [...accesses, ...added];
      });
      hooks.beforeToolCall.tap({ stage: Stage.POLICY }, (_call, state) => {
        for (const access of state.accesses) {
          const real = access.realPath;
          if (real === null) continue;
          if (deny.some((root) => isWithin(real, root)))
            return { action: 'deny', code: 'PATH_DENIED', reason: 'path denied by policy', access };
        }
        for (const access of state.accesses) {
          const real = access.realPath;
          if (real === null) continue;
          const root = options.prompt.find((r) => isWithin(real, r));
          if (root !== undefined)
            state.prompt({
              code: 'PATH_PROMPT',
              reason: 'path needs approval',
              access,
              rule: { plugin: 'test-policy', pattern: `${root}/**`, access: 'prompt' },
            });
        }
        return undefined;
      });
    },
  };
}
