import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type CallContext, describeValue, type Guard, ToolgateError, validateContext } from '@toolgate/core';
import type { ClientIdentity } from './clientIdentity.js';
import type { ElicitationApprover } from './elicitationApprover.js';
import type { UpstreamOptions } from './upstream.js';

export interface GatewayOptions {
  guard: Guard;
  /** The context every call of this connection is judged in. Give this or `ctxFor`. */
  ctx?: CallContext;
  /** Builds the context once the client has said who it is (`initialize`). */
  ctxFor?: (client: ClientIdentity) => CallContext;
  /** The real server: a child process over stdio, a Streamable-HTTP URL, or any MCP client transport. */
  upstream: UpstreamOptions | Transport;
  /** Ask the human through the client (`elicitation/create`) when the client supports it. */
  elicitation?: ElicitationApprover;
  /** How long the first `tools/call` waits for the gateway's own `tools/list` (tool classification). Default 10 s. */
  primeTimeoutMs?: number;
  /** Transport errors and malformed messages (default: one line on stderr). */
  onError?: (error: Error) => void;
  /**
   * How long a relayed request waits for the server's answer (default 120 000 ms; progress notifications
   * for it restart the clock). On expiry the client gets a JSON-RPC error (-32001) and the server a
   * `notifications/cancelled`: a server that answers nothing never leaves the client waiting forever.
   */
  requestTimeoutMs?: number;
  /**
   * Largest message accepted on a stdio stream (default 32 MiB). A longer one is answered with a JSON-RPC
   * error naming its size when its id can be read; the connection goes on.
   */
  maxFrameBytes?: number;
  /**
   * Restart a spawned server (`upstream: {command}`) that exits or crashes, at most this many times per
   * gateway (default 0: the gateway closes with it). Requests in flight are answered with an error either
   * way; the new server is initialised with the client's own `initialize` parameters.
   */
  restart?: number;
}

export interface Gateway {
  /** Starts the upstream server, then serves `client` until either side closes. */
  connect(client: Transport): Promise<void>;
  /** Closes both sides; the child process is terminated. */
  close(): Promise<void>;
  /** Settles once the gateway has closed, for whichever reason. */
  readonly closed: Promise<void>;
  /** The context calls are judged in (known after `initialize` when `ctxFor` is used). */
  readonly ctx: CallContext | undefined;
  /** Who ended the session: the client, the upstream server (exit or crash), or `close()`. */
  readonly closedBy: 'client' | 'upstream' | 'local' | undefined;
}

const OPTION_KEYS = new Set([
  'guard',
  'ctx',
  'ctxFor',
  'upstream',
  'elicitation',
  'primeTimeoutMs',
  'onError',
  'requestTimeoutMs',
  'maxFrameBytes',
  'restart',
]);

function invalid(field: string, value: unknown, expected: string): ToolgateError {
  return new ToolgateError(
    'TOOLGATE_ERR_INVALID_OPTIONS',
    `createGateway: option ${field} must be ${expected}, got ${describeValue(value)}`,
    { field },
  );
}

export function checkOptions(options: GatewayOptions): void {
  if (options === null || typeof options !== 'object') throw invalid('(options)', options, 'an object');
  for (const key of Object.keys(options))
    if (!OPTION_KEYS.has(key))
      throw invalid(
        key,
        (options as unknown as Record<string, unknown>)[key],
        `one of ${[...OPTION_KEYS].join(', ')} (unknown option)`,
      );
  const { guard, ctx, ctxFor } = options;
  if (
    guard === null ||
    typeof guard !== 'object' ||
    typeof guard.check !== 'function' ||
    typeof guard.describeTools !== 'function'
  )
    throw invalid('guard', guard, 'a guard from createGuard()');
  if ((ctx === undefined) === (ctxFor === undefined))
    throw invalid('ctx/ctxFor', ctx ?? ctxFor, 'exactly one of ctx and ctxFor');
  if (ctx !== undefined) validateContext(ctx);
  if (ctxFor !== undefined && typeof ctxFor !== 'function') throw invalid('ctxFor', ctxFor, 'a function');
  if (options.elicitation !== undefined && typeof options.elicitation?.bind !== 'function')
    throw invalid('elicitation', options.elicitation, 'the plugin returned by elicitationApprover()');
  if (
    options.primeTimeoutMs !== undefined &&
    !(typeof options.primeTimeoutMs === 'number' && options.primeTimeoutMs > 0)
  )
    throw invalid('primeTimeoutMs', options.primeTimeoutMs, 'a positive number');
  for (const key of ['requestTimeoutMs', 'maxFrameBytes'] as const) {
    const v = options[key];
    if (v !== undefined && !(typeof v === 'number' && Number.isFinite(v) && v > 0))
      throw invalid(key, v, 'a positive number');
  }
  const restart = options.restart;
  if (restart !== undefined && !(Number.isInteger(restart) && restart >= 0))
    throw invalid('restart', restart, 'a non-negative integer');
  if (restart && !(options.upstream && typeof options.upstream === 'object' && 'command' in options.upstream))
    throw invalid('restart', restart, '0 unless upstream is a spawned server ({command, args})');
}
