import { explain, formatExplain } from '@toolgate/folder-rules';
import type { Command } from 'commander';
import { buildGuard } from '../buildGuard.js';
import { Exit } from '../exitCodes.js';
import { addCallOptions, type CallCommandOptions, guardOptions, parseCall } from './callOptions.js';

/**
 * `toolgate explain`: the full trace of one call — accesses and how each was resolved, every rule
 * considered, which matched, and why. Exit codes as `check`.
 */
export async function runExplain(
  options: CallCommandOptions,
  out: NodeJS.WritableStream = process.stdout,
): Promise<number> {
  const call = parseCall(options.call);
  const built = await buildGuard(guardOptions(options));
  const result = await explain(built, call, built.ctx);
  if (options.json) {
    const { decisionRecord: _d, ...rest } = result;
    out.write(`${JSON.stringify(rest)}\n`);
  } else out.write(`${formatExplain(result)}\n`);
  return result.decision === 'allow' ? Exit.ALLOW : result.decision === 'deny' ? Exit.DENY : Exit.PROMPT;
}

export function registerExplain(program: Command): void {
  addCallOptions(
    program
      .command('explain')
      .description('Show why a tool call gets its decision: every access, rule and source'),
  ).action(async (options: CallCommandOptions) => {
    process.exitCode = await runExplain(options);
  });
}
