import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { describeValue, ToolgateError } from '@toolgate/core';
import { ChildUpstream } from './childUpstream.js';
import { DEFAULT_MAX_FRAME_BYTES } from './lineTransport.js';

/** Run the real server as a child process speaking MCP over stdio. */
export interface StdioUpstream {
  command: string;
  args?: string[];
  /** Added to the SDK's default environment (HOME, PATH, …); the gateway's own environment is not leaked. */
  env?: Record<string, string>;
  cwd?: string;
  /** Where the child's stderr goes (default `inherit`: the server's logs stay visible). */
  stderr?: 'inherit' | 'pipe' | 'ignore';
}

/** Connect to a Streamable-HTTP MCP server. */
export interface HttpUpstream {
  url: string | URL;
  headers?: Record<string, string>;
}

export type UpstreamOptions = StdioUpstream | HttpUpstream;

function invalid(field: string, value: unknown, expected: string): ToolgateError {
  return new ToolgateError(
    'TOOLGATE_ERR_INVALID_OPTIONS',
    `createGateway: option ${field} must be ${expected}, got ${describeValue(value)}`,
    { field },
  );
}

/** Validates the upstream option at construction (not at connect) and returns a factory for its transport. */
export function upstreamFactory(
  upstream: UpstreamOptions | Transport,
  maxFrameBytes = DEFAULT_MAX_FRAME_BYTES,
): () => Promise<Transport> {
  if (upstream === null || typeof upstream !== 'object')
    throw invalid('upstream', upstream, '{ command, args } or { url } or an MCP Transport');
  if ('send' in upstream && typeof upstream.send === 'function') return async () => upstream as Transport;
  if ('url' in upstream) {
    let url: URL;
    try {
      url = new URL(upstream.url);
    } catch {
      throw invalid('upstream.url', upstream.url, 'an absolute http(s) URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw invalid('upstream.url', upstream.url, 'an http: or https: URL');
    const headers = upstream.headers;
    // Loaded on demand: stdio users never pay for the HTTP client (and its eventsource dependency).
    return async () => {
      const { StreamableHTTPClientTransport } = await import(
        '@modelcontextprotocol/sdk/client/streamableHttp.js'
      );
      return new StreamableHTTPClientTransport(url, headers ? { requestInit: { headers } } : undefined);
    };
  }
  const { command, args = [], env, cwd, stderr = 'inherit' } = upstream as StdioUpstream;
  if (typeof command !== 'string' || command === '')
    throw invalid('upstream.command', command, 'a non-empty string');
  if (!Array.isArray(args) || args.some((a) => typeof a !== 'string'))
    throw invalid('upstream.args', args, 'an array of strings');
  if (!['inherit', 'pipe', 'ignore'].includes(stderr))
    throw invalid('upstream.stderr', stderr, '"inherit", "pipe" or "ignore"');
  return async () =>
    new ChildUpstream({
      command,
      args,
      stderr,
      maxFrameBytes,
      ...(env ? { env } : {}),
      ...(cwd ? { cwd } : {}),
    });
}
