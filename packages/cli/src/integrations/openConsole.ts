import type { ApprovalDesk } from '@toolgate/approvals';
import type { DecisionStream, ExplainInput, ExplainView, WebConsole } from '@toolgate/console';
import { explain, formatExplain } from '@toolgate/folder-rules';
import type { BuiltGuard } from '../buildGuard.js';
import { UsageError } from '../exitCodes.js';

export interface OpenConsoleOptions {
  /** `--console [port]` / `--port`: `true` or absent means any free port. */
  port?: string | boolean;
  /** `--console-host` / `--host`: given explicitly, it may be a non-loopback address (with a warning). */
  host?: string;
  desk?: ApprovalDesk;
  decisions?: DecisionStream;
  audit?: string;
  /** A guard built from the policy with no trail and no approvals: explaining a call records and asks nothing. */
  explainWith?: BuiltGuard;
  /** Where the login link and warnings go (stderr: for `mcp`, stdout is the protocol). */
  err?: NodeJS.WritableStream;
  env?: NodeJS.ProcessEnv;
}

/** `--console 8080` → 8080; `--console` alone → 0 (any free port). */
export function consolePort(value: string | boolean | undefined): number {
  if (value === undefined || value === true) return 0;
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new UsageError(`--console/--port must be a port number (0–65535), got ${JSON.stringify(value)}`);
  return n;
}

function explainer(built: BuiltGuard): (input: ExplainInput) => Promise<ExplainView> {
  return async (input) => {
    const call =
      'call' in input
        ? input.call
        : { tool: input.op === 'write' ? 'write_file' : 'read_file', args: { path: input.path } };
    const r = await explain(built, call, built.ctx);
    return { decision: r.decision, text: formatExplain(r) };
  };
}

/**
 * Starts the web console beside a command and prints how to reach it: the login link (one use, five
 * minutes) and, when the token was generated, the token for scripts. The token comes from
 * `TOOLGATE_CONSOLE_TOKEN` when set (then it is not printed).
 */
export async function openConsole(options: OpenConsoleOptions): Promise<WebConsole> {
  const err = options.err ?? process.stderr;
  const env = options.env ?? process.env;
  const port = consolePort(options.port);
  const { startConsole } = await import('@toolgate/console');
  const token = env.TOOLGATE_CONSOLE_TOKEN;
  const start = startConsole({
    port,
    ...(options.host !== undefined ? { host: options.host, allowRemote: true } : {}),
    ...(token ? { token } : {}),
    ...(options.desk ? { desk: options.desk } : {}),
    ...(options.decisions ? { decisions: options.decisions } : {}),
    ...(options.audit ? { audit: { file: options.audit } } : {}),
    ...(options.explainWith ? { explain: explainer(options.explainWith) } : {}),
    operator: `console (${env.USER ?? env.LOGNAME ?? 'user'})`,
    onWarning: (m) => err.write(`toolgate console: WARNING: ${m}\n`),
  });
  let web: WebConsole;
  try {
    web = await start;
  } catch (error) {
    // A port taken or not ours to bind is the user's to change: a usage error naming it, not a crash.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL')
      throw new UsageError(
        `--console/--port ${port}: cannot listen on ${options.host ?? '127.0.0.1'} (${code})`,
      );
    throw error;
  }
  err.write(`toolgate console: ${web.url}\n`);
  err.write(`toolgate console: log in (once, within 5 minutes): ${web.loginUrl()}\n`);
  if (!token)
    err.write(
      `toolgate console: API token (Authorization: Bearer …; set TOOLGATE_CONSOLE_TOKEN to choose one): ${web.token}\n`,
    );
  return web;
}
