import { HOOK_HOSTS } from '../integrations/hookHostNames.js';
import { type HookCommandOptions, runHookCommand } from '../integrations/runHookCommand.js';
import { fdChunks } from './fdChunks.js';
import { blockingError, type HookAnswer } from './hookHost.js';
import { writeOut } from './writeOut.js';

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
    else if (name in VALUE_FLAGS) {
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

/** Runs one hook call from argv (after `hook`); prints the answer and resolves with the exit code. */
export async function hookMain(argv: readonly string[]): Promise<number> {
  const parsed = parseHookArgs(argv);
  // The event is read from fd 0 directly, not through `process.stdin` (a net.Socket on a pipe): see fdChunks.
  const stdin = fdChunks(0);
  const answer: HookAnswer =
    typeof parsed === 'string'
      ? blockingError(parsed)
      : await runHookCommand(parsed.assistant, parsed.options, stdin);
  writeOut(1, answer.stdout);
  writeOut(2, answer.stderr);
  return answer.exitCode;
}
