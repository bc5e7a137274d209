import type { Command } from 'commander';
import { UsageError } from '../exitCodes.js';
import type { ImportOptions } from '../import/runImport.js';

export function registerImport(program: Command): void {
  program
    .command('import')
    .description(
      "Convert an assistant's permission rules into a toolgate policy (claude-code: Read/Edit/Write rules)",
    )
    .argument('<assistant>', 'claude-code')
    .option(
      '--settings <file...>',
      'settings files (default: ~/.claude/settings.json, .claude/settings.json, .claude/settings.local.json)',
    )
    .option('--dir <dir>', 'the project directory (default: this one)')
    .option('--out <file>', 'write the policy here (default: print it), e.g. toolgate.yaml')
    .option('--force', 'write over --out if it exists')
    .action(async (assistant: string, options: ImportOptions) => {
      if (assistant !== 'claude-code')
        throw new UsageError(
          `import knows claude-code; got ${JSON.stringify(assistant)} (Gemini CLI's policy engine matches tool names and argument regexes, not paths: nothing to convert into path rules)`,
        );
      const { runImport } = await import('../import/runImport.js');
      process.exitCode = runImport(options);
    });
}
