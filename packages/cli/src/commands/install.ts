import type { Command } from 'commander';
import type { InstallOptions } from '../install/runInstall.js';
import { HOOK_HOSTS } from '../integrations/hookHostNames.js';

function scopeOptions(cmd: Command): Command {
  return cmd
    .argument('<assistant>', `one of ${HOOK_HOSTS.join(', ')}`)
    .option(
      '--project',
      "the project's shared settings (.claude/settings.json, .gemini/settings.json) — the default",
    )
    .option('--local', "Claude Code only: the project's uncommitted .claude/settings.local.json")
    .option('--user', 'your user settings (~/.claude/settings.json, ~/.gemini/settings.json): every project')
    .option('--dir <dir>', 'the project directory (default: this one)')
    .option('--dry-run', 'print the settings file that would be written; write nothing');
}

export function registerInstall(program: Command): void {
  scopeOptions(
    program
      .command('install')
      .description(
        "Add toolgate's before-tool hook to a coding assistant's settings (idempotent; keeps your other settings)",
      ),
  )
    .option(
      '--policy <file>',
      'pin this policy file (default: the hook discovers the project’s toolgate.yaml)',
    )
    .option('--dialect <dialect>', 'the dialect of --policy')
    .option(
      '--approve-allowed',
      'answer policy allows with the assistant’s "allow" (skips its own permission prompt)',
    )
    .action(async (assistant: string, options: InstallOptions) => {
      const { runInstall } = await import('../install/runInstall.js');
      process.exitCode = runInstall(assistant, options);
    });
  scopeOptions(
    program
      .command('uninstall')
      .description(
        "Remove toolgate's hook from a coding assistant's settings (leaves everything else as it was)",
      ),
  ).action(async (assistant: string, options: InstallOptions) => {
    const { runUninstall } = await import('../install/runInstall.js');
    process.exitCode = runUninstall(assistant, options);
  });
}
