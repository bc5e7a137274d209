import { readFileSync } from 'node:fs';
import { isToolgateError } from '@toolgate/core';
import { Command, CommanderError } from 'commander';
import { commands } from './commands/index.js';
import { Exit, UsageError } from './exitCodes.js';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

export function createProgram(): Command {
  const program = new Command('toolgate')
    .description(
      "Guard an AI agent's tool calls: which paths a call touches, judged against a policy, before it runs.",
    )
    .version(pkg.version, '-v, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  for (const register of commands) register(program);
  return program;
}

/** Runs the CLI and resolves with the exit code; it never throws and never calls process.exit itself. */
export async function main(argv: readonly string[]): Promise<number> {
  const program = createProgram();
  process.exitCode = undefined;
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : Exit.OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end with exit code 0; every other commander error is a usage error.
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return Exit.OK;
      return Exit.USAGE;
    }
    if (error instanceof UsageError || isToolgateError(error)) {
      process.stderr.write(`toolgate: ${error.message}\n`);
      return Exit.USAGE;
    }
    process.stderr.write(
      `toolgate: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return Exit.USAGE;
  }
}
