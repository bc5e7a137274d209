import type { Command } from 'commander';
import { PRESETS } from '../init/presets.js';
import type { InitOptions } from '../init/runInit.js';

export function registerInit(program: Command): void {
  program
    .command('init')
    .description('Write a starter policy (toolgate.yaml) for this project, every rule explained')
    .option('--preset <name>', `${PRESETS.join(' | ')} (default: asked on a terminal, else standard)`)
    .option(
      '--user',
      'write your user policy (~/.config/toolgate/policy.yaml), used where a project has none',
    )
    .option('--dir <dir>', 'start looking for the project root here (default: this directory)')
    .option('--force', 'write over an existing policy')
    .option('--stdout', 'print the policy; write nothing')
    .action(async (options: InitOptions) => {
      const { runInit } = await import('../init/runInit.js');
      process.exitCode = await runInit(options);
    });
}
