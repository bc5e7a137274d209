import { type CallState, uncertainAccess } from '@toolgate/core';
import type { ExtractOptions } from '../effects/extractTypes.js';
import { analyseCommand, type CommandAnalysis, patchAccesses } from './analyseCommand.js';
import { toolInvocation } from './toolInvocation.js';
import type { CompiledToolSpec } from './toolSpec.js';

/** `true`, `"true"` and anything else that is not plainly false turn the command into input. */
function flagSet(value: unknown): boolean {
  return value !== undefined && value !== null && value !== false && value !== 'false';
}

/**
 * Everything one call of a known shell tool can touch: its working directory, its command in the shell
 * and environment it starts with, or an honest "unknown" for input typed into a running process, code of
 * another language, and shapes the spec does not describe.
 */
export function analyseToolCall(
  args: Record<string, unknown>,
  spec: CompiledToolSpec,
  state: CallState,
  options: ExtractOptions,
): CommandAnalysis {
  const inv = toolInvocation(args, spec, state);
  const out: CommandAnalysis = { accesses: inv.accesses, extractions: [] };
  const prefix = spec.base !== undefined && inv.args !== args ? `${spec.base}.` : '';
  const origin = `shell:args.${prefix}${spec.commandArg}`;
  const value = inv.args[spec.commandArg];
  const asInput = spec.inputFlagArg !== undefined && flagSet(inv.args[spec.inputFlagArg]);
  if (spec.kind !== 'command' || asInput) {
    if (value === undefined || value === null || value === '') return out;
    if (spec.kind === 'patch' && typeof value === 'string') {
      out.accesses.push(...patchAccesses(value, inv.ctx, inv.cwd, origin));
      return out;
    }
    const why =
      spec.kind === 'code'
        ? 'the tool runs code of another language, whose file accesses cannot be analysed'
        : 'the tool types input into a process that is already running: what it does is unknown';
    out.accesses.push(uncertainAccess(String(value), 'write', origin, why));
    return out;
  }
  if (value === undefined) {
    out.accesses.push(uncertainAccess('?', 'write', origin, `the ${spec.commandArg} argument is missing`));
    return out;
  }
  const form = spec.form === 'either' ? (Array.isArray(value) ? 'argv' : 'script') : spec.form;
  const shell = spec.shellArg !== undefined ? inv.args[spec.shellArg] : undefined;
  const one = analyseCommand(
    value,
    { form, shell, defaultShell: spec.defaultShell, applyPatch: spec.applyPatch, origin },
    inv.ctx,
    inv.cwd,
    options,
  );
  out.accesses.push(...one.accesses);
  out.extractions.push(...one.extractions);
  return out;
}
