import type { TestEventResult } from '@toolgate/webhooks';
import type { Command } from 'commander';
import { Exit, UsageError } from '../exitCodes.js';

export interface WebhooksTestOptions {
  secret?: string;
  format?: string;
  timeout?: string;
  json?: boolean;
}

const FORMATS = ['json', 'slack', 'discord'] as const;

/**
 * `toolgate webhooks test <url>`: sends one signed sample violation and prints the receiver's answer.
 * Exit 0 when the receiver accepted it (2xx), 1 when it refused or could not be reached, 2 on bad usage.
 */
export async function runWebhooksTest(
  url: string,
  options: WebhooksTestOptions,
  env: NodeJS.ProcessEnv = process.env,
  out: NodeJS.WritableStream = process.stdout,
): Promise<number> {
  const format = options.format;
  if (format !== undefined && !(FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(
      `webhooks test: --format must be one of ${FORMATS.join(', ')}, got ${JSON.stringify(format)}`,
    );
  }
  const timeoutMs = options.timeout === undefined ? 10_000 : Number(options.timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
    throw new UsageError(
      `webhooks test: --timeout must be a positive number of milliseconds, got ${JSON.stringify(options.timeout)}`,
    );
  // The same variable the plugin's environment configuration signs with, so a test matches production.
  const secret = options.secret ?? (env.TOOLGATE_WEBHOOK_SECRET || undefined);
  // Loaded on use: undici and nodemailer are not worth their start-up cost to every other command.
  const { sendTestEvent } = await import('@toolgate/webhooks');
  const result: TestEventResult = await sendTestEvent({
    url,
    timeoutMs,
    ...(secret ? { secret } : {}),
    ...(format ? { format: format as (typeof FORMATS)[number] } : {}),
  });
  if (options.json) {
    out.write(`${JSON.stringify({ url, signed: Boolean(secret), ...result })}\n`);
  } else {
    out.write(`POST ${url} (format ${result.format}, ${secret ? 'signed' : 'unsigned'})\n`);
    out.write(`X-Toolgate-Delivery: ${result.deliveryId}\n`);
    out.write(
      `${result.ok ? 'accepted' : 'FAILED'}: ${result.status === undefined ? 'no HTTP response' : `HTTP ${result.status}`} in ${result.elapsedMs} ms\n`,
    );
    if (result.response !== '') out.write(`${result.response}\n`);
  }
  return result.ok ? Exit.OK : Exit.FAILED;
}

export function registerWebhooks(program: Command): void {
  const group = program.command('webhooks').description('Violation notifications: try a receiver');
  group
    .command('test')
    .description(
      "Send a signed sample violation to <url> and print the receiver's answer (exit 0 accepted, 1 refused or unreachable)",
    )
    .argument('<url>', 'the receiver, http(s)')
    .option('--secret <secret>', 'HMAC secret for X-Toolgate-Signature (default: $TOOLGATE_WEBHOOK_SECRET)')
    .option('--format <format>', `payload shape: ${FORMATS.join(', ')} (default: detected from the URL)`)
    .option('--timeout <ms>', 'give up after this many milliseconds (default 10000)')
    .option('--json', 'print the result as one JSON object')
    .action(async (url: string, options: WebhooksTestOptions) => {
      process.exitCode = await runWebhooksTest(url, options);
    });
}
