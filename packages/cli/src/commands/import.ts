import type { Command } from 'commander';
import { UsageError } from '../exitCodes.js';
import type { ImportOptions } from '../import/runImport.js';

export function registerImport(program: Command): void {
  program
    .command('import')
    .description(
      "Convert an assistant's permission rules into a toolgate policy (claude-code: Read/Edit/Write rules; gemini-cli: policy rules on file tools)",
    )
    .argument('<assistant>', 'claude-code or gemini-cli')
    .argument(
      '[files...]',
      'files to read, as --settings (gemini-cli default: ~/.gemini/policies/*.toml, .gemini/policies/*.toml)',
    )
    .option(
      '--settings <file...>',
      'settings files (default: ~/.claude/settings.json, .claude/settings.json, .claude/settings.local.json)',
    )
    .option('--dir <dir>', 'the project directory (default: this one)')
    .option('--out <file>', 'write the policy here (default: print it), e.g. toolgate.yaml')
    .option('--force', 'write over --out if it exists')
    .action(async (assistant: string, files: string[], options: ImportOptions) => {
      if (assistant !== 'claude-code' && assistant !== 'gemini-cli')
        throw new UsageError(`import knows claude-code and gemini-cli; got ${JSON.stringify(assistant)}`);
      const named = [...(options.settings ?? []), ...files];
      const o: ImportOptions = { ...options, ...(named.length > 0 ? { settings: named } : {}) };
      const { runImport, runGeminiImport } = await import('../import/runImport.js');
      process.exitCode = assistant === 'claude-code' ? runImport(o) : runGeminiImport(o);
    });
}
