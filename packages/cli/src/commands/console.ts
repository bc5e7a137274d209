import type { Command } from 'commander';
import { addPolicyOptions, type CallCommandOptions, guardOptions } from './callOptions.js';

interface ConsoleCommandOptions extends Omit<CallCommandOptions, 'call' | 'json' | 'strict'> {
  audit?: string;
  port?: string;
  host?: string;
  redis?: string;
  cwd?: string;
  workspace?: string;
}

/**
 * `toolgate console`: the web console on its own — the audit trail (filters, records, chain verification,
 * denial statistics) and explain for the policy; with `--redis`, the questions of every gateway of the fleet
 * on that Redis (`toolgate mcp --redis`), answered once. The live decision stream belongs to a running guard:
 * `toolgate mcp --console` serves it beside the gateway.
 */
export async function runConsole(options: ConsoleCommandOptions): Promise<number> {
  const { openConsole } = await import('../integrations/openConsole.js');
  const { buildGuard } = await import('../buildGuard.js');
  const explainWith = await buildGuard(guardOptions({ ...options, call: '' }));
  const fleet = options.redis !== undefined ? await fleetDesk(options.redis) : undefined;
  const web = await openConsole({
    port: options.port ?? true,
    ...(fleet ? { desk: fleet } : {}),
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
  await fleet?.close();
  return 0;
}

/** The fleet's desk on Redis; a Redis that cannot be read at start is a usage error naming the URL. */
async function fleetDesk(url: string) {
  const { UsageError } = await import('../exitCodes.js');
  if (!/^rediss?:\/\//.test(url))
    throw new UsageError(`--redis must be a redis:// URL, got ${JSON.stringify(url)}`);
  const { redisDesk } = await import('@toolgate/store-redis');
  const desk = redisDesk({
    url,
    onError: (error) => process.stderr.write(`toolgate console: redis ${url}: ${error.message}\n`),
  });
  try {
    await desk.ready();
  } catch (error) {
    await desk.close();
    throw new UsageError(`--redis ${url}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return desk;
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
    .option(
      '--redis <url>',
      'answer the questions of every gateway on this Redis (toolgate mcp --redis): the fleet’s desk',
    )
    .option('--cwd <dir>', 'directory explain resolves relative paths against (default: this shell’s)')
    .option('--workspace <dir>', 'the workspace root for explain (default: --cwd)')
    .action(async (options: ConsoleCommandOptions) => {
      process.exitCode = await runConsole(options);
    });
}
