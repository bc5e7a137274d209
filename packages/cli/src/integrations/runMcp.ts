import { randomUUID } from 'node:crypto';
import type { GuardPlugin } from '@toolgate/core';
import {
  createGateway,
  elicitationApprover,
  requireAbsolutePaths,
  serveStdio,
  type UpstreamOptions,
} from '@toolgate/mcp';
import { buildGuard } from '../buildGuard.js';
import { UsageError } from '../exitCodes.js';
import { extraPlugins } from './extraPlugins.js';

export interface McpCommandOptions {
  dialect?: string;
  policy?: string;
  audit?: string;
  approvals?: string;
  cwd?: string;
  workspace?: string;
  agent?: string;
  url?: string;
  relativePaths?: string;
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
  const extras = await extraPlugins({ ...options, approvals: options.approvals ?? 'auto-deny' });
  try {
    return await serve(server, options, relative, elicitation, extras.plugins);
  } finally {
    extras.close();
  }
}

async function serve(
  server: readonly string[],
  options: McpCommandOptions,
  relative: 'deny' | 'cwd',
  elicitation: ReturnType<typeof elicitationApprover>,
  extras: GuardPlugin[],
): Promise<number> {
  const { guard, ctx } = await buildGuard({
    ...(options.dialect !== undefined ? { dialect: options.dialect } : {}),
    ...(options.policy !== undefined ? { policy: options.policy } : {}),
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(options.workspace !== undefined ? { workspace: options.workspace } : {}),
    ...(options.agent !== undefined ? { agent: options.agent } : {}),
    // Elicitation first (the human behind the client), then the configured strategy for clients without it.
    // Relative paths are judged against --cwd, but a server resolves them its own way (the filesystem server:
    // against its first root): denied unless the user vouches that the server uses --cwd too.
    plugins: [elicitation, ...extras, ...(relative === 'deny' ? [requireAbsolutePaths()] : [])],
  });
  // The child runs in the directory relative paths are judged against.
  const spawned = upstreamFrom(server, options.url);
  const upstream = 'command' in spawned ? { ...spawned, cwd: ctx.cwd } : spawned;
  // Validated here so a bad flag is a usage error before anything is spawned.
  createGateway({ guard, ctx, upstream, onError: () => {} });
  const gateway = await serveStdio({
    guard,
    elicitation,
    upstream,
    ctxFor: (client) => ({
      ...ctx,
      sessionId: randomUUID(),
      agentId: options.agent ?? client.name ?? 'mcp-client',
    }),
  });
  return gateway.closedBy === 'upstream' ? 1 : 0;
}
