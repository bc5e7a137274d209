import type { RunCommandOptions } from '../integrations/runSandboxCommand.js';

// The flags of `toolgate run` (commands/run.ts); a change there is a change here.
const VALUE_FLAGS: Record<
  string,
  'dialect' | 'policy' | 'agent' | 'cwd' | 'workspace' | 'audit' | 'approvals'
> = {
  '--dialect': 'dialect',
  '--policy': 'policy',
  '--agent': 'agent',
  '--cwd': 'cwd',
  '--workspace': 'workspace',
  '--audit': 'audit',
  '--approvals': 'approvals',
};

const LIST_FLAGS: Record<string, 'overlay' | 'approve' | 'approveWrite'> = {
  '--overlay': 'overlay',
  '--approve': 'approve',
  '--approve-write': 'approveWrite',
};

/**
 * `toolgate run`'s arguments (after `run`) in their plain form — known flags, `--`, the command — read without
 * the command-line framework. Anything else (`--help`, an unknown flag, a missing value, no `--`
 * or nothing after it) is `undefined`: the full CLI parses it, so every message and edge case stays
 * commander's. Values are read as commander reads them: `--flag value` or `--flag=value`, a list flag takes
 * the values up to the next option, a repeated flag keeps the last value or appends to the list.
 */
export function parseRunArgs(
  argv: readonly string[],
): { command: string[]; options: RunCommandOptions } | undefined {
  const options: RunCommandOptions = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      const command = argv.slice(i + 1);
      if (command.length === 0) return undefined;
      return { command, options };
    }
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    if (name === '--print' && eq < 0) options.print = true;
    else if (name in LIST_FLAGS) {
      const key = LIST_FLAGS[name]!;
      const values = options[key] ?? [];
      if (eq > 0) values.push(arg.slice(eq + 1));
      else while (argv[i + 1] !== undefined && !argv[i + 1]!.startsWith('-')) values.push(argv[++i]!);
      if (values.length === 0) return undefined;
      options[key] = values;
    } else if (name in VALUE_FLAGS) {
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined) return undefined;
      options[VALUE_FLAGS[name]!] = value;
    } else return undefined;
  }
  return undefined;
}
