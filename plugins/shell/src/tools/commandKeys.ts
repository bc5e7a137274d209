/**
 * Argument names that carry a command in tools nobody declared. Compared without case and separators, so
 * `commandLine`, `command_line` and `COMMAND-LINE` are one name. `code` is code of some language: it cannot
 * be analysed as shell, so it is uncertain (see `analyseUnknownTool`).
 */
const SCRIPT_KEYS = new Set([
  'command',
  'commands',
  'cmd',
  'cmds',
  'cmdline',
  'commandline',
  'shellcommand',
  'bashcommand',
  'script',
  'shellscript',
  'bash',
  'sh',
]);
const CODE_KEYS = new Set(['code']);
/** An argv array under its own name. */
const ARGV_KEYS = new Set(['argv']);
/** A program named on its own, with its arguments beside it (`{program: "cat", args: ["/etc/shadow"]}`). */
const PROGRAM_KEYS = new Set(['program', 'executable', 'exe', 'binary']);
const ARGS_KEYS = new Set(['args', 'arguments']);

/** `commandLine` → `commandline`. */
export function normaliseKey(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, '');
}

export interface FoundCommand {
  /** `cmd` or `action.command`. */
  path: string;
  value: unknown;
  /** `argv`: executed as is; for a program key, `value` is `[program, ...args]` (or the malformed args). */
  kind: 'script' | 'code' | 'argv';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `[program, ...args]`, or the args value itself when it is not a list of strings (then uncertain). */
function withArgs(obj: Record<string, unknown>, program: string): unknown {
  const key = Object.keys(obj).find((k) => ARGS_KEYS.has(normaliseKey(k)));
  if (key === undefined) return [program];
  const args = obj[key];
  if (args === undefined || args === null) return [program];
  return Array.isArray(args) && args.every((a) => typeof a === 'string') ? [program, ...args] : args;
}

/**
 * Every command-like argument of a call: top level, and one level down in an object argument
 * (`action.command`). Values that cannot hold a command (numbers, booleans, null) are skipped; strings,
 * arrays and anything else are returned for the caller to analyse or fail closed on.
 */
export function findCommands(args: Record<string, unknown>): FoundCommand[] {
  const found: FoundCommand[] = [];
  const visit = (obj: Record<string, unknown>, prefix: string, depth: number) => {
    for (const [key, value] of Object.entries(obj)) {
      if (value === null || value === undefined || typeof value === 'number' || typeof value === 'boolean')
        continue;
      const k = normaliseKey(key);
      if (PROGRAM_KEYS.has(k) && typeof value === 'string') {
        found.push({ path: `${prefix}${key}`, value: withArgs(obj, value), kind: 'argv' });
        continue;
      }
      const kind = SCRIPT_KEYS.has(k)
        ? 'script'
        : CODE_KEYS.has(k)
          ? 'code'
          : ARGV_KEYS.has(k)
            ? 'argv'
            : undefined;
      if (kind && !isPlainObject(value)) found.push({ path: `${prefix}${key}`, value, kind });
      else if (depth === 0 && isPlainObject(value)) visit(value, `${prefix}${key}.`, 1);
    }
  };
  visit(args, '', 0);
  return found;
}

/** Whether a call carries anything under a command-like argument (see `findCommands`). */
export function carriesCommand(args: Record<string, unknown>): boolean {
  return findCommands(args).length > 0;
}
