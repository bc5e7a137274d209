import { type Access, type CallState, type GuardPlugin, Stage, uncertainAccess } from '@toolgate/core';
import { extractAccesses } from './effects/extractAccesses.js';
import type { Extraction } from './effects/extractTypes.js';
import { compileShellOptions, type ShellOptions } from './shellOptions.js';

export type { ShellOptions, ShellToolSpec } from './shellOptions.js';

/**
 * The shell plugin: turns the command of every shell tool call into the accesses it makes (reads, writes,
 * subtrees, with `cd` tracking, nested `bash -c`/`eval`/`$(…)` and wrappers), or uncertain accesses that
 * core denies. It claims `shell` for every call it analysed, so policies can fail closed on calls nobody did.
 *
 * @example
 * ```ts
 * import { createGuard } from '@toolgate/core';
 * import { shell } from '@toolgate/shell';
 * const guard = createGuard({ plugins: [shell({ metacharacters: 'deny' }), myPolicy] });
 * const d = await guard.check({ tool: 'shell_exec', args: { command: 'cat /etc/shadow' } }, ctx);
 * ```
 */
export function shell(options?: ShellOptions): GuardPlugin {
  const opts = compileShellOptions(options);
  const extractOptions = {
    unknownCommands: opts.unknownCommands,
    maxDepth: opts.maxDepth,
    budget: opts.budget,
  };
  // Per call only (keyed by the call's state object): never reused across calls.
  const byCall = new WeakMap<CallState, Extraction>();
  const needsGuard = opts.metacharacters === 'deny' || opts.unknownCommands !== 'write';

  return {
    name: 'shell',
    apply(hooks) {
      hooks.collectAccesses.tap({ stage: Stage.EXTRACT }, (accesses, call, state) => {
        const spec = opts.tools.get(call.tool);
        if (!spec) return accesses;
        state.claim('shell');
        const out: Access[] = [...accesses];
        let cwd: string | null = state.ctx.cwd;
        for (const name of spec.cwdArgs) {
          if (!Object.hasOwn(call.args, name)) continue;
          const value = call.args[name];
          if (typeof value !== 'string' || value === '' || value.includes('\0')) {
            out.push(
              uncertainAccess(
                String(value),
                'read',
                `shell:args.${name}`,
                `the ${name} argument is not a usable path`,
              ),
            );
            cwd = null;
          } else {
            const a = state.access(value, 'read', { origin: `shell:args.${name}` });
            out.push(a);
            cwd = a.certain ? a.realPath : null;
          }
          break;
        }
        const command = call.args[spec.commandArg];
        if (typeof command !== 'string') {
          out.push(
            uncertainAccess(
              String(command),
              'write',
              `shell:args.${spec.commandArg}`,
              `the ${spec.commandArg} argument is missing or not a string`,
            ),
          );
          return out;
        }
        const ex = extractAccesses(command, state.ctx, extractOptions, cwd);
        if (needsGuard) byCall.set(state, ex);
        out.push(...ex.accesses);
        return out;
      });

      if (!needsGuard) return;
      hooks.beforeToolCall.tap({ stage: Stage.GUARD }, (_call, state) => {
        const ex = byCall.get(state);
        if (!ex) return undefined;
        if (opts.metacharacters === 'deny' && ex.metacharacters.length > 0) {
          return {
            action: 'deny',
            code: 'SHELL_METACHARACTER',
            reason: `shell metacharacters are not allowed: ${ex.metacharacters.join(' ')}`,
            hint: 'Run a plain command, or put the logic in a script inside an allowed path.',
          };
        }
        if (opts.unknownCommands !== 'write' && ex.unknownCommands.length > 0) {
          const finding = {
            code: 'SHELL_UNCERTAIN',
            reason: `unknown command${ex.unknownCommands.length > 1 ? 's' : ''}: ${ex.unknownCommands.join(', ')}`,
            hint: 'Use a common command whose effect on files is known, or ask the user.',
          };
          if (opts.unknownCommands === 'deny') return { action: 'deny', ...finding };
          state.prompt(finding);
        }
        return undefined;
      });
    },
  };
}
