import { type Access, type GuardPlugin, isWithin, type Op, uncertainAccess } from '@toolgate/core';

// A small policy of the test's own for the filesystem server's tools, so the gateway's mechanics are
// tested against core alone; end-to-end tests with @toolgate/folder-rules live in test/integration.
const TOOLS: Record<string, { op: Op; keys: string[]; subtree?: boolean }> = {
  read_file: { op: 'read', keys: ['path'] },
  read_text_file: { op: 'read', keys: ['path'] },
  read_media_file: { op: 'read', keys: ['path'] },
  read_multiple_files: { op: 'read', keys: ['paths'] },
  get_file_info: { op: 'read', keys: ['path'] },
  list_directory: { op: 'read', keys: ['path'] },
  list_directory_with_sizes: { op: 'read', keys: ['path'] },
  directory_tree: { op: 'read', keys: ['path'], subtree: true },
  search_files: { op: 'read', keys: ['path'], subtree: true },
  write_file: { op: 'write', keys: ['path'] },
  edit_file: { op: 'write', keys: ['path'] },
  create_directory: { op: 'write', keys: ['path'] },
  move_file: { op: 'write', keys: ['source', 'destination'] },
};

export interface FsPolicyOptions {
  read?: string[];
  write?: string[];
  prompt?: string[];
}

export function fsPolicy(options: FsPolicyOptions): GuardPlugin {
  const read = [...(options.read ?? []), ...(options.write ?? [])];
  const write = options.write ?? [];
  const prompt = options.prompt ?? [];
  return {
    name: 'test-fs-policy',
    policy: true,
    apply(hooks) {
      hooks.collectAccesses.tap('extract', (accesses, call, state) => {
        const spec = TOOLS[call.tool];
        if (!spec) return accesses;
        const out: Access[] = [...accesses];
        for (const key of spec.keys) {
          const value = call.args[key];
          const raws = Array.isArray(value) ? value : [value];
          for (const raw of raws) {
            const origin = `test:args.${key}`;
            if (typeof raw !== 'string')
              out.push(uncertainAccess(String(raw), spec.op, origin, 'not a string'));
            else
              out.push(
                state.access(raw, spec.op, {
                  origin,
                  scope: spec.subtree ? 'subtree' : 'path',
                  followFinal: !(call.tool === 'move_file' && key === 'source'),
                }),
              );
          }
        }
        return out;
      });
      hooks.beforeToolCall.tap('judge', (_call, state) => {
        for (const a of state.accesses) {
          const real = a.realPath ?? '';
          const roots = a.op === 'write' ? write : read;
          if (prompt.some((r) => isWithin(real, r))) {
            state.prompt({ code: 'PATH_PROMPT', reason: 'path needs approval', access: a });
            continue;
          }
          if (!roots.some((r) => isWithin(real, r))) {
            return {
              action: 'deny',
              code: 'PATH_DENIED',
              reason: 'path outside allowed scope',
              access: a,
              allowedPaths: roots,
            };
          }
        }
        return undefined;
      });
      hooks.describeTools.tap('describe', (tools) =>
        tools
          .filter((t) => write.length > 0 || t.annotations?.readOnlyHint !== false)
          .map((t) =>
            TOOLS[t.name]
              ? { ...t, description: `${t.description ?? ''}\n\nAllowed paths: ${read.join(', ')}` }
              : t,
          ),
      );
    },
  };
}
