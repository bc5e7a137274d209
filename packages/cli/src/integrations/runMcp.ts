import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import type { DeskStrategy } from '@toolgate/approvals';
import type { AuditErrorEvent } from '@toolgate/audit-log';
import type { DecisionStream } from '@toolgate/console';
import type { CallContext, Decision, Guard, ToolCall } from '@toolgate/core';
import { type CompiledPolicy, folderGuardStatus } from '@toolgate/folder-rules';
import {
  createGateway,
  elicitationApprover,
  requireAbsolutePaths,
  serveStdio,
  type UpstreamOptions,
} from '@toolgate/mcp';
import { type BuildGuardOptions, type BuiltGuard, buildGuard } from '../buildGuard.js';
import type { GatewayNumbers } from '../commands/gatewayNumbers.js';
import { UsageError } from '../exitCodes.js';
import { auditOpenProblem } from './auditWatch.js';
import { type ExtraPlugins, extraPlugins } from './extraPlugins.js';
import { consolePort, openConsole } from './openConsole.js';

export interface McpCommandOptions {
  dialect?: string;
  policy?: string;
  audit?: string;
  /** `--no-dialect-audit`. */
  dialectAudit?: boolean;
  webhook?: string[];
  /** wolo `-P/--allow-path`. */
  allowPath?: string[];
  /** wolo `--wild`. */
  wild?: boolean;
  /** `-r/--resume <session>`: the session id to use (and resume), instead of a fresh one per client. */
  resume?: string;
  auditRequired?: boolean;
  approvals?: string;
  cwd?: string;
  workspace?: string;
  agent?: string;
  url?: string;
  relativePaths?: string;
  /** `--console [port]`: the web console beside the gateway (`true`: any free port). */
  console?: string | boolean;
  /** `--console-host`: an explicit listen address (non-loopback is warned about). */
  consoleHost?: string;
  /** `--watch-policy`: reload the policy file when it changes, between calls. */
  watchPolicy?: boolean;
  /** `--redis <url>`: prompts asked of the fleet's desks on this Redis, grants shared there. */
  redis?: string;
  /** `--request-timeout`, `--max-frame-bytes`, `--restart`, validated (commands/gatewayNumbers.ts). */
  gateway?: GatewayNumbers;
}

function upstreamFrom(server: readonly string[], url: string | undefined): UpstreamOptions {
  if (url !== undefined && server.length > 0)
    throw new UsageError('give either --url or a server command after --, not both');
  if (url !== undefined) return { url };
  const [command, ...args] = server;
  if (!command)
    throw new UsageError('the MCP server to guard: toolgate mcp … -- <command> [args…] (or --url <url>)');
  return { command, args };
}

/**
 * Runs the gateway on this process's stdio until the client or the server goes away. Exit code 0 when the
 * client ended the session, 1 when the server died under it.
 */
export async function runMcp(server: readonly string[], options: McpCommandOptions): Promise<number> {
  const relative = options.relativePaths ?? 'deny';
  if (relative !== 'deny' && relative !== 'cwd')
    throw new UsageError(`--relative-paths must be deny or cwd, got ${JSON.stringify(relative)}`);
  const elicitation = elicitationApprover();
  if (options.resume !== undefined && options.resume.trim() === '')
    throw new UsageError('-r/--resume must name a session');
  if (options.consoleHost !== undefined && options.console === undefined)
    throw new UsageError('--console-host needs --console');
  // Checked before anything starts: a bad port is a usage error.
  if (options.console !== undefined) consolePort(options.console);
  const live = options.console !== undefined ? await consoleParts() : undefined;
  // Which policy version judged a call: known once the guard exists (serve sets it).
  const hashes: PolicyHashes = { of: () => undefined };
  const extras = await extraPlugins({
    ...options,
    approvals: options.approvals ?? 'auto-deny',
    persistSessions: options.resume !== undefined,
    ...(live ? { desk: live.desk } : {}),
    policyHash: (decision, call) => hashes.of(decision, call),
  });
  try {
    const problem = auditOpenProblem(extras.audit);
    if (problem) throw new UsageError(`--audit: ${problem}`);
    const code = await serve(server, options, relative, elicitation, extras, live, hashes);
    // Records the trail could not take: the session ends non-zero, never as if all were recorded.
    const { buffered, dropped, failures } = extras.audit?.counters ?? {
      buffered: 0,
      dropped: 0,
      failures: 0,
    };
    if (extras.audit && !extras.audit.flush()) {
      process.stderr.write(
        `toolgate mcp: ${buffered + dropped} audit record(s) could not be written to ${extras.audit.file}\n`,
      );
      return code || 1;
    }
    return failures > 0 && code === 0 ? 1 : code;
  } finally {
    extras.close();
  }
}

async function serve(
  server: readonly string[],
  options: McpCommandOptions,
  relative: 'deny' | 'cwd',
  elicitation: ReturnType<typeof elicitationApprover>,
  extras: ExtraPlugins,
  live: ConsoleParts | undefined,
  hashes: PolicyHashes,
): Promise<number> {
  const guardOptions: BuildGuardOptions = {
    ...(options.dialect !== undefined ? { dialect: options.dialect } : {}),
    ...(options.policy !== undefined ? { policy: options.policy } : {}),
    ...(options.allowPath !== undefined ? { allowPaths: options.allowPath } : {}),
    ...(options.wild ? { wild: true } : {}),
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(options.workspace !== undefined ? { workspace: options.workspace } : {}),
    ...(options.agent !== undefined ? { agent: options.agent } : {}),
    // A rewritten shell call whose sandbox needs the network proxy starts it (`toolgate sandbox-exec`, run by
    // the upstream server with the call): its connections go to this gateway's trail.
    sandboxExecFlags: [
      ...(options.audit !== undefined ? ['--audit', resolve(options.audit)] : []),
      ...(options.workspace !== undefined ? ['--workspace', resolve(options.workspace)] : []),
    ],
    // Elicitation first (the human behind the client), then the configured strategy for clients without it.
    // Relative paths are judged against --cwd, but a server resolves them its own way (the filesystem server:
    // against its first root): denied unless the user vouches that the server uses --cwd too.
    plugins: [elicitation],
    pluginsFor: async (policy, home) => [
      ...(await extras.pluginsFor(policy, home)),
      ...(relative === 'deny' ? [requireAbsolutePaths()] : []),
      ...(live ? [live.stream] : []),
    ],
  };
  const built = await buildGuard(guardOptions);
  const { ctx, policy } = built;
  let guard: Guard = built.guard;
  hashes.of = () => policy.hash;
  const watching = options.watchPolicy ? await watchPolicy(built, guardOptions) : undefined;
  if (watching) {
    guard = watching.guard;
    hashes.of = (_decision, call) => watching.guard.hashOf(call) ?? watching.guard.hash;
  }
  const web = live ? await startLiveConsole(options, live, extras) : undefined;
  try {
    return await relay(server, options, elicitation, guard, ctx, policy, extras);
  } finally {
    watching?.close();
    await web?.close();
    live?.stream.close();
  }
}

interface PolicyHashes {
  of: (decision: Decision, call: ToolCall) => string | undefined;
}

/**
 * `--watch-policy`: the policy file (and its overlays) watched; a new version builds a new guard in the
 * background with the same plugins, and the gateway uses it from the next call on. A version that fails to
 * load keeps the last good one and says so on stderr and as a `policy-error` event.
 */
async function watchPolicy(built: BuiltGuard, options: BuildGuardOptions) {
  const { filePolicySource } = await import('../config/filePolicySource.js');
  const { reloadingGuard } = await import('../reloadingGuard.js');
  const source = await filePolicySource<Guard>(built.file, {
    initial: { policy: built.guard, hash: built.policy.hash },
    also: options.overlays ?? [],
    load: async () => {
      const next = await buildGuard(options);
      return { policy: next.guard, hash: next.policy.hash };
    },
  });
  const guard = reloadingGuard(source);
  source.subscribe(({ hash }) =>
    process.stderr.write(`toolgate mcp: policy ${built.file} reloaded: now enforcing ${hash}\n`),
  );
  source.onError((e) => {
    process.stderr.write(`toolgate mcp: ${e.message}\n`);
    guard.events.emit('policy-error', e);
  });
  return {
    guard,
    close() {
      guard.close();
      source.close();
    },
  };
}

interface ConsoleParts {
  desk: DeskStrategy;
  stream: DecisionStream;
}

async function consoleParts(): Promise<ConsoleParts> {
  const [{ desk }, { decisionStream }] = await Promise.all([
    import('@toolgate/approvals'),
    import('@toolgate/console'),
  ]);
  return { desk: desk({ name: 'console' }), stream: decisionStream() };
}

/** The console beside the gateway: its desk, its decisions, its trail, and explain for its policy. */
async function startLiveConsole(options: McpCommandOptions, live: ConsoleParts, extras: ExtraPlugins) {
  // Explain gets a guard of its own, built from the same flags with no trail and no approvals.
  const explainWith = await buildGuard({
    ...(options.dialect !== undefined ? { dialect: options.dialect } : {}),
    ...(options.policy !== undefined ? { policy: options.policy } : {}),
    ...(options.allowPath !== undefined ? { allowPaths: options.allowPath } : {}),
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(options.workspace !== undefined ? { workspace: options.workspace } : {}),
    ...(options.agent !== undefined ? { agent: options.agent } : {}),
  });
  return openConsole({
    port: options.console,
    ...(options.consoleHost !== undefined ? { host: options.consoleHost } : {}),
    desk: live.desk,
    decisions: live.stream,
    ...(extras.audit ? { audit: extras.audit.file } : options.audit ? { audit: options.audit } : {}),
    explainWith,
  });
}

async function relay(
  server: readonly string[],
  options: McpCommandOptions,
  elicitation: ReturnType<typeof elicitationApprover>,
  guard: Guard,
  ctx: CallContext,
  policy: CompiledPolicy,
  extras: ExtraPlugins,
): Promise<number> {
  // Seed 000: "Logs: 🔒 Folder guard enabled - Read paths: […], Write paths: […]" (stderr: stdout is MCP).
  const status = folderGuardStatus(policy);
  if (status !== undefined) process.stderr.write(`${status}\n`);
  // Every failure of the trail is on stderr as it happens (the gateway runs for a whole session).
  if (extras.audit)
    guard.events.on('audit-error', (event: AuditErrorEvent) => {
      const error = event.error instanceof Error ? event.error.message : String(event.error);
      process.stderr.write(`toolgate mcp: audit trail ${event.file}: ${event.what} failed: ${error}\n`);
    });
  // The child runs in the directory relative paths are judged against.
  const spawned = upstreamFrom(server, options.url);
  const upstream = 'command' in spawned ? { ...spawned, cwd: ctx.cwd } : spawned;
  // Validated here so a bad flag is a usage error before anything is spawned.
  createGateway({ guard, ctx, upstream, onError: () => {}, ...options.gateway });
  const gateway = await serveStdio({
    ...options.gateway,
    guard,
    elicitation,
    upstream,
    ctxFor: (client) => ({
      ...ctx,
      // "Use -r <session_id> to resume and keep confirmations" (seed 002).
      // Seed 000: "Generated code passes session_id (from MCP_SESSION_ID env var)": a gateway started for one
      // workflow session takes it from there, so grants stay in that session only.
      sessionId: options.resume ?? (process.env.MCP_SESSION_ID || randomUUID()),
      agentId: options.agent ?? client.name ?? 'mcp-client',
    }),
  });
  return gateway.closedBy === 'upstream' ? 1 : 0;
}
