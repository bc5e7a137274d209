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

/** `commandLine` → `commandline`. */
export function normaliseKey(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, '');
}

export interface FoundCommand {
  /** `cmd` or `action.command`. */
  path: string;
  value: unknown;
  kind: 'script' | 'code';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
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
      const kind = SCRIPT_KEYS.has(k) ? 'script' : CODE_KEYS.has(k) ? 'code' : undefined;
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
