import { type Access, type GuardPlugin, isWithin, type Op, uncertainAccess } from '@toolgate/core';

// The CLI tests' own small policy over the filesystem tool names, so the hook adapter's mapping and
// protocol are tested against core alone. End-to-end runs with folder-rules live in test/integration.
const TOOLS: Record<string, { op: Op; key: string; subtree?: boolean }> = {
  read_file: { op: 'read', key: 'path' },
  list_directory: { op: 'list', key: 'path' },
  search_files: { op: 'list', key: 'path', subtree: true },
  Grep: { op: 'read', key: 'path', subtree: true },
  write_file: { op: 'write', key: 'path' },
  edit_file: { op: 'write', key: 'path' },
};

export function testPolicy(options: { write: string[]; prompt?: string[] }): GuardPlugin {
  return {
    name: 'test-policy',
    policy: true,
    apply(hooks) {
      hooks.collectAccesses.tap('extract', (accesses, call, state) => {
        const spec = TOOLS[call.tool];
        if (!spec) return accesses;
        const raw = call.args[spec.key];
        const origin = `test:args.${spec.key}`;
        const access: Access =
          typeof raw === 'string'
            ? state.access(raw, spec.op, { origin, scope: spec.subtree ? 'subtree' : 'path' })
            : uncertainAccess(JSON.stringify(raw) ?? 'undefined', spec.op, origin, 'path is not a string');
        return [...accesses, access];
      });
      hooks.beforeToolCall.tap('judge', (_call, state) => {
        for (const a of state.accesses) {
          const real = a.realPath ?? '';
          if (options.prompt?.some((r) => isWithin(real, r))) {
            state.prompt({ code: 'PATH_PROMPT', reason: 'path needs approval', access: a });
          } else if (!options.write.some((r) => isWithin(real, r))) {
            return {
              action: 'deny',
              code: 'PATH_DENIED',
              reason: 'path outside allowed scope',
              access: a,
              allowedPaths: options.write,
            };
          }
        }
        return undefined;
      });
    },
  };
}
