import { type GuardPlugin, isWithin, Stage } from '@toolgate/core';

/** A tiny policy for tests: denies any access whose real path lies under one of `roots`. */
export function denyUnder(roots: string[]): GuardPlugin {
  return {
    name: 'deny-under',
    policy: true,
    apply(hooks) {
      hooks.beforeToolCall.tap({ stage: Stage.POLICY }, (_call, state) => {
        for (const access of state.accesses) {
          const path = access.realPath;
          if (path === null) continue;
          const hit = roots.find(
            (r) => isWithin(path, r) || (access.scope === 'subtree' && isWithin(r, path)),
          );
          if (hit)
            return {
              action: 'deny',
              code: 'PATH_DENIED',
              reason: `${access.op} of ${path} is denied`,
              access,
            };
        }
        return undefined;
      });
    },
  };
}
