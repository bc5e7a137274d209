import { type CallState, uncertainAccess } from '@toolgate/core';
import type { ExtractOptions } from '../effects/extractTypes.js';
import { analyseCommand, type CommandAnalysis } from './analyseCommand.js';
import { findCommands } from './commandKeys.js';
import { pathLikeArgs } from './pathLikeArgs.js';
import { toolInvocation } from './toolInvocation.js';
import type { CompiledToolSpec } from './toolSpec.js';

/** Where an undeclared tool most likely keeps its directory, environment and shell. */
const FALLBACK_CWD = [
  'cwd',
  'working_directory',
  'workdir',
  'workingDirectory',
  'dir_path',
  'directory',
  'dir',
];

function fallbackSpec(commandArg: string, base: string | undefined): CompiledToolSpec {
  return {
    commandArg,
    form: 'either',
    cwdArgs: FALLBACK_CWD,
    envArg: 'env',
    shellArg: 'shell',
    loginArg: 'login',
    defaultShell: 'bash',
    defaultLogin: false,
    base,
    kind: 'command',
    inputFlagArg: undefined,
    applyPatch: false,
    userArg: 'user',
  };
}

/**
 * A tool nobody declared that carries a command under a command-like argument (`cmd`, `script`,
 * `action.command`…): analysed as shell, never allowed unanalysed. A string is a script for bash; an array
 * of strings is read both ways, as one argv and as a list of scripts, and both readings must pass; `code`
 * and shapes nothing can run are uncertain. Returns undefined when the call carries no command at all.
 */
export function analyseUnknownTool(
  args: Record<string, unknown>,
  state: CallState,
  options: ExtractOptions,
): CommandAnalysis | undefined {
  const found = findCommands(args);
  if (found.length === 0) return undefined;
  const out: CommandAnalysis = { accesses: [], extractions: [] };
  for (const f of found) {
    const origin = `shell:args.${f.path}`;
    if (f.kind === 'code') {
      if (f.value !== '')
        out.accesses.push(
          uncertainAccess(
            String(f.value),
            'write',
            origin,
            'the tool is not known and runs code that cannot be analysed',
          ),
        );
      continue;
    }
    const dot = f.path.indexOf('.');
    const spec = fallbackSpec(
      dot === -1 ? f.path : f.path.slice(dot + 1),
      dot === -1 ? undefined : f.path.slice(0, dot),
    );
    const inv = toolInvocation(args, spec, state);
    out.accesses.push(...inv.accesses);
    const skip = new Set([
      ...found.map((c) => c.path.slice(c.path.indexOf('.') + 1)),
      ...FALLBACK_CWD,
      'args',
      'arguments',
      'env',
      'shell',
      'login',
      'user',
    ]);
    out.accesses.push(...pathLikeArgs(inv.args, skip, inv.ctx, inv.cwd, spec.base ? `${spec.base}.` : ''));
    const shell = inv.args.shell;
    const readings: { value: unknown; form: 'script' | 'argv' }[] = [];
    if (f.kind === 'argv' && Array.isArray(f.value)) readings.push({ value: f.value, form: 'argv' });
    else if (typeof f.value === 'string') readings.push({ value: f.value, form: 'script' });
    else if (Array.isArray(f.value) && f.value.every((v) => typeof v === 'string')) {
      // `["ls src", "git status"]` is a list of scripts: as an argv it would exec a program named
      // "ls src", which does not exist, so that reading runs nothing and is skipped.
      const first = f.value[0] ?? '';
      if (!/\s/.test(first) || first.includes('/')) readings.push({ value: f.value, form: 'argv' });
      for (const v of f.value) readings.push({ value: v, form: 'script' });
    } else {
      out.accesses.push(
        uncertainAccess(
          JSON.stringify(f.value) ?? '?',
          'write',
          origin,
          'the command has a shape that cannot be analysed',
        ),
      );
      continue;
    }
    for (const r of readings) {
      const one = analyseCommand(
        r.value,
        { form: r.form, shell, defaultShell: 'bash', applyPatch: false, origin },
        inv.ctx,
        inv.cwd,
        options,
      );
      out.accesses.push(...one.accesses);
      out.extractions.push(...one.extractions);
    }
  }
  return out;
}
