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
}
