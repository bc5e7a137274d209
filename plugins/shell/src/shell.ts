import type { CallState, GuardPlugin } from '@toolgate/core';
import { Stage } from '@toolgate/core';
import type { Extraction } from './effects/extractTypes.js';
import { compileShellOptions, type ShellOptions } from './shellOptions.js';
import type { CommandAnalysis } from './tools/analyseCommand.js';
import { analyseToolCall } from './tools/analyseToolCall.js';
import { analyseUnknownTool } from './tools/analyseUnknownTool.js';
import { mergeExtractions as merged } from './tools/mergeExtractions.js';
import { serverToolName } from './tools/toolName.js';

export type { ShellOptions, ShellToolSpec } from './shellOptions.js';

/**
 * The shell plugin: turns the command of every shell tool call into the accesses it makes (reads, writes,
 * subtrees, with `cd` tracking, nested `bash -c`/`eval`/`$(…)` and wrappers), or uncertain accesses that
 * core denies. Shell tools are the known ones (see `KNOWN_TOOLS`: scripts, argv arrays, working directory,
 * environment and shell arguments), `options.tools`, and any undeclared tool carrying a command-like
 * argument. It claims `shell` for every call it analysed, so policies can fail closed on calls nobody did.
 *
 * @example
 * ```ts
 * // createGuard is exported by @toolgate/core, shell by this package (@toolgate/shell).
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

  // Known tools by their own name or their server's (`mcp__desktop-commander__start_process`); any other
  // tool with a command-like argument is analysed too unless declared `notShell`.
  function analyse(
    tool: string,
    args: Record<string, unknown>,
    state: CallState,
  ): CommandAnalysis | undefined {
    const base = serverToolName(tool);
    const spec = opts.tools.get(tool) ?? opts.tools.get(base);
    if (spec) return analyseToolCall(args, spec, state, extractOptions);
    if (opts.notShell.has(tool) || opts.notShell.has(base)) return undefined;
    return analyseUnknownTool(args, state, extractOptions);
  }

  return {
    name: 'shell',
    apply(hooks) {
      hooks.collectAccesses.tap({ stage: Stage.EXTRACT }, (accesses, call, state) => {
        const analysis = analyse(call.tool, call.args, state);
        if (!analysis) return accesses;
        state.claim('shell');
        for (const ex of analysis.extractions) for (const n of ex.network) state.reach(n);
        if (needsGuard) byCall.set(state, merged(analysis.extractions));
        return [...accesses, ...analysis.accesses];
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
