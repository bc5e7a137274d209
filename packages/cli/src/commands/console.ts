import type { Command } from 'commander';
import { addPolicyOptions, type CallCommandOptions, guardOptions } from './callOptions.js';

interface ConsoleCommandOptions extends Omit<CallCommandOptions, 'call' | 'json' | 'strict'> {
  audit?: string;
  port?: string;
  host?: string;
  cwd?: string;
  workspace?: string;
}

/**
 * `toolgate console`: the web console on its own — the audit trail (filters, records, chain verification,
 * denial statistics) and explain for the policy. Pending approvals and the live decision stream belong to
 * a running guard: `toolgate mcp --console` serves them beside the gateway.
 */
export async function runConsole(options: ConsoleCommandOptions): Promise<number> {
  const { openConsole } = await import('../integrations/openConsole.js');
  const { buildGuard } = await import('../buildGuard.js');
  const explainWith = await buildGuard(guardOptions({ ...options, call: '' }));
  const web = await openConsole({
    port: options.port ?? true,
    ...(options.host !== undefined ? { host: options.host } : {}),
    ...(options.audit !== undefined ? { audit: options.audit } : {}),
    explainWith,
  });
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await web.close();
  return 0;
}

export function registerConsole(program: Command): void {
  addPolicyOptions(
    program
      .command('console')
      .description(
        'Serve the web console on loopback: the audit trail, its chain verification, denial statistics and explain (approvals: toolgate mcp --console)',
      ),
  )
    .option('--audit <file>', 'the audit trail to browse (JSONL, as --audit of mcp/hook writes it)')
    .option('--port <n>', 'port to listen on (default: any free port)')
    .option(
      '--host <address>',
      'listen on this address; anything but loopback is reachable by others (warned)',
    )
    .option('--cwd <dir>', 'directory explain resolves relative paths against (default: this shell’s)')
    .option('--workspace <dir>', 'the workspace root for explain (default: --cwd)')
    .action(async (options: ConsoleCommandOptions) => {
      process.exitCode = await runConsole(options);
    });
}
