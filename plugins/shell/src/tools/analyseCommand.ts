import {
  type Access,
  type CallContext,
  patchAccesses as corePatchAccesses,
  uncertainAccess,
} from '@toolgate/core';
import { extractAccesses } from '../effects/extractAccesses.js';
import type { Extraction, ExtractOptions } from '../effects/extractTypes.js';
import { argvScript } from './argvScript.js';
import { shellBinary } from './shellBinary.js';

/** What running one command value reaches: accesses, plus the extractions the strict-mode checks read. */
export interface CommandAnalysis {
  accesses: Access[];
  extractions: Extraction[];
}

/** How to read one command value. */
export interface CommandSetting {
  form: 'script' | 'argv';
  /** The shell a script runs in (`bash` unless the tool says), and where that came from. */
  shell?: unknown;
  defaultShell: string;
  /** The host applies `apply_patch` itself (Codex). */
  applyPatch: boolean;
  /** `shell:args.command`, for uncertain findings. */
  origin: string;
}

const PATCH_COMMANDS = new Set(['apply_patch', 'applypatch']);

function unsure(raw: string, origin: string, reason: string): CommandAnalysis {
  return { accesses: [uncertainAccess(raw || '?', 'write', origin, reason)], extractions: [] };
}

/**
 * The writes of a patch, read by core's `patchAccesses` (the one apply_patch parser, shared with
 * folder-rules' `apply_patch` tool): relative names from `cwd`; uncertain when the patch does not parse, or
 * the directory is unknown. `embedded`: the patch is inside a script (`apply_patch <<'EOF'` …).
 */
export function patchAccesses(
  text: unknown,
  ctx: CallContext,
  cwd: string | null,
  origin: string,
  cdBefore = false,
  embedded = false,
): Access[] {
  return corePatchAccesses(text, ctx, { origin, cwd, cdBefore, embedded });
}

/**
 * The accesses one command value reaches: a script in its shell, or an argv exactly as `execvp` gets it.
 * An argv the host would apply as a patch (`["apply_patch", "*** Begin Patch…"]`) is the patch's writes;
 * a script that calls `apply_patch` is read for its envelope (Codex intercepts `bash -lc "apply_patch <<EOF"`).
 */
export function analyseCommand(
  value: unknown,
  setting: CommandSetting,
  ctx: CallContext,
  cwd: string | null,
  options: ExtractOptions,
): CommandAnalysis {
  let script: string;
  if (setting.form === 'argv') {
    if (!Array.isArray(value))
      return unsure(String(value), setting.origin, 'the command is not an argv array');
    const first = typeof value[0] === 'string' ? value[0].split('/').pop() : undefined;
    if (setting.applyPatch && first !== undefined && PATCH_COMMANDS.has(first)) {
      if (value.length !== 2 || typeof value[1] !== 'string')
        return unsure(first, setting.origin, 'apply_patch takes exactly one patch argument');
      return { accesses: patchAccesses(value[1], ctx, cwd, setting.origin), extractions: [] };
    }
    const quoted = argvScript(value);
    if (quoted === undefined)
      return unsure(
        JSON.stringify(value),
        setting.origin,
        'the argv is empty or holds something other than strings',
      );
    script = quoted;
  } else {
    if (typeof value !== 'string')
      return unsure(String(value), setting.origin, 'the command is not a string');
    if (value.trim() === '') return { accesses: [], extractions: [] };
    const shell = shellBinary(setting.shell, setting.defaultShell, value);
    if ('uncertain' in shell) return unsure(value, setting.origin, shell.uncertain);
    script = shell.plain ? value : (argvScript([shell.shell, '-c', value]) ?? '');
  }
  // Program identity on: core asks the policy whether each program file is one the agent could have written.
  const ex = extractAccesses(script, ctx, { ...options, programs: true }, cwd);
  const accesses = [...ex.accesses];
  if (setting.applyPatch && ex.unknownCommands.some((c) => PATCH_COMMANDS.has(c.split('/').pop() ?? c)))
    accesses.push(...patchAccesses(script, ctx, cwd, setting.origin, /\bcd\b|\bpushd\b/.test(script), true));
  return { accesses, extractions: [ex] };
}
