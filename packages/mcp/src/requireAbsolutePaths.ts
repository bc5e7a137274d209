import { type GuardPlugin, Stage } from '@toolgate/core';

/** A path the server resolves the way the guard does: absolute, or `~` / `~/…` (both expand the same HOME). */
function unambiguous(raw: string): boolean {
  return raw.startsWith('/') || raw === '~' || raw.startsWith('~/');
}

/**
 * Denies path arguments an MCP server would resolve differently from the guard. The guard resolves a
 * relative path against the call's `cwd`; a server resolves it however it likes — the filesystem server,
 * for one, against its first allowed directory, not its working directory — and it never expands `$VAR`,
 * `~user` or `<workspace>`. Judging one path while the server touches another is a bypass, so the gateway
 * asks for paths both sides read the same way.
 *
 * @example
 * ```ts
 * const guard = createGuard({ plugins: [folderRules({ policy }), requireAbsolutePaths()] });
 * ```
 */
export function requireAbsolutePaths(): GuardPlugin {
  return {
    name: 'mcp-absolute-paths',
    apply(hooks) {
      hooks.beforeToolCall.tap({ stage: Stage.GUARD }, (_call, state) => {
        // A shell command's relative paths are resolved against the command's cwd by the shell plugin,
        // which is where a shell runs them; the ambiguity is only in servers' own path arguments.
        if (state.claimed('shell')) return undefined;
        for (const access of state.accesses) {
          if (unambiguous(access.raw)) continue;
          return {
            action: 'deny',
            code: 'PATH_UNCERTAIN',
            reason: `the MCP server resolves ${JSON.stringify(access.raw)} its own way (relative paths, variables); it cannot be judged with certainty`,
            access,
            hint: 'Use an absolute path.',
          };
        }
        return undefined;
      });
    },
  };
}
