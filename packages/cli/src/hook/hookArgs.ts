import { HOOK_HOSTS } from '../integrations/hookHostNames.js';
import type { HookCommandOptions } from '../integrations/runHookCommand.js';

// `toolgate hook …` without the command-line framework: an assistant starts this process before every tool
// call, so it parses its few flags itself (commander and every other command's code stay unloaded). The flags
// and their meaning are those `toolgate hook --help` lists (commands/hook.ts); a change there is a change here.
const VALUE_FLAGS: Record<string, keyof HookCommandOptions> = {
  '--dialect': 'dialect',
  '--policy': 'policy',
  '--workspace': 'workspace',
  '--audit': 'audit',
  '--approvals': 'approvals',
};

const LIST_FLAGS: Record<string, 'webhook' | 'allowPath'> = {
  '--webhook': 'webhook',
  '-P': 'allowPath',
  '--allow-path': 'allowPath',
};

export function parseHookArgs(
  argv: readonly string[],
): { assistant: string; options: HookCommandOptions } | string {
  const options: HookCommandOptions = {};
  let assistant: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    if (name === '--approve-allowed' && eq < 0) options.approveAllowed = true;
    else if (name === '--audit-required' && eq < 0) options.auditRequired = true;
    else if (name === '--no-dialect-audit' && eq < 0) options.dialectAudit = false;
    else if (name === '--wild' && eq < 0) options.wild = true;
    else if (name in LIST_FLAGS) {
      // Variadic as commander reads them: the value(s) up to the next option.
      const key = LIST_FLAGS[name]!;
      const values = (options[key] as string[] | undefined) ?? [];
      if (eq > 0) values.push(arg.slice(eq + 1));
      else while (argv[i + 1] !== undefined && !argv[i + 1]!.startsWith('-')) values.push(argv[++i]!);
      if (values.length === 0) return `option ${name} needs a value`;
      (options as Record<string, unknown>)[key] = values;
    } else if (name in VALUE_FLAGS) {
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined) return `option ${name} needs a value`;
      (options as Record<string, unknown>)[VALUE_FLAGS[name]!] = value;
    } else if (arg.startsWith('-')) return `unknown option ${JSON.stringify(arg)} (see toolgate hook --help)`;
    else if (assistant === undefined) assistant = arg;
    else return `unexpected argument ${JSON.stringify(arg)}`;
  }
  if (assistant === undefined) return `missing <assistant>: one of ${HOOK_HOSTS.join(', ')}`;
  return { assistant, options };
}
