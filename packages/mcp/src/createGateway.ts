import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { type Decision, type ToolDescriptor, ToolgateError, validateContext } from '@toolgate/core';
import { clientIdentity, supportsFormElicitation } from './clientIdentity.js';
import { denyResult, envelopeOf } from './denyResult.js';
import { elicitationAnswer, elicitationParams } from './elicitationRequest.js';
import { checkOptions, type Gateway, type GatewayOptions } from './gatewayOptions.js';
import {
  errorResponse,
  INTERNAL_ERROR,
  isNotification,
  isRequest,
  isResponse,
  type RequestId,
  type RpcRequest,
  UPSTREAM_CLOSED,
} from './jsonRpc.js';
import { OwnRequests } from './ownRequests.js';
import { upstreamFactory } from './upstream.js';

/**
 * An MCP gateway: the client talks to it as if it were the server, and it relays every message to the real
 * server — except that each `tools/call` is judged by the guard first (a denied call never reaches the
 * server and comes back as an `isError` result carrying the rejection envelope), and `tools/list` answers
 * are passed through `guard.describeTools`. Resources, prompts, notifications, progress, cancellation and
 * the server's own requests (sampling, roots, elicitation) pass through untouched.
 *
 * @example
 * ```ts
 * import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
 * import { createGuard } from '@toolgate/core';
 * import { createGateway } from '@toolgate/mcp';
 * const gateway = createGateway({
 *   guard: createGuard({ plugins: [policy] }),
 *   ctx,
 *   upstream: { command: 'npx', args: ['@modelcontextprotocol/server-filesystem', '/srv/data'] },
 * });
 * await gateway.connect(new StdioServerTransport());
 * await gateway.closed;
 * ```
 */
export function createGateway(options: GatewayOptions): Gateway {
  checkOptions(options);
  const { guard, elicitation } = options;
  const makeUpstream = upstreamFactory(options.upstream);
  const primeTimeoutMs = options.primeTimeoutMs ?? 10_000;
  const onError =
    options.onError ?? ((error: Error) => process.stderr.write(`toolgate mcp: ${error.message}\n`));
  const report = (error: unknown) => {
    try {
      onError(error instanceof Error ? error : new Error(String(error)));
    } catch {
      /* a failing error reporter must not take the gateway down */
    }
  };

  let ctx = options.ctx;
  let client: Transport | undefined;
  let upstream: Transport | undefined;
  let unbind: (() => void) | undefined;
  let isClosed = false;
  let closing: Promise<void> | undefined;
  let closedBy: Gateway['closedBy'];
  // Client requests relayed upstream and not answered yet (id → method): answered with an error if the
  // server goes away, so no client waits forever.
  const relayed = new Map<RequestId, string>();
  // tools/call requests being judged; a cancellation that arrives meanwhile means they are never relayed.
  const judging = new Map<RequestId, { cancelled: boolean }>();
  const ownUp = new OwnRequests();
  const ownDown = new OwnRequests();
  let priming: Promise<void> | undefined;
  let serverHasTools = false;
  let primed = false;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });

  const toClient = (message: JSONRPCMessage) => {
    if (!isClosed && client) client.send(message).catch(report);
  };
  const toUpstream = (message: JSONRPCMessage) => {
    if (isClosed || !upstream) return;
    upstream.send(message).catch((error: unknown) => {
      report(error);
      if (isRequest(message)) {
        relayed.delete(message.id);
        toClient(
          errorResponse(
            message.id,
            UPSTREAM_CLOSED,
            `toolgate: could not reach the upstream MCP server: ${String(error)}`,
          ),
        );
      }
    });
  };
  const relayRequest = (message: JSONRPCMessage & RpcRequest) => {
    relayed.set(message.id, message.method);
    toUpstream(message);
  };

  // The gateway lists the server's tools itself once the client is initialised, so that tool classification
  // from annotations and input schemas (describeTools) is in place before the first call is judged.
  const prime = () => {
    primed = false;
    priming = ownUp
      .send(upstream!, 'tools/list', {}, primeTimeoutMs)
      .then((result) => {
        if (Array.isArray(result.tools) && ctx) guard.describeTools(result.tools as ToolDescriptor[], ctx);
      })
      .catch((error: unknown) =>
        report(
          new Error(
            `could not list the upstream tools: ${error instanceof Error ? error.message : String(error)}`,
          ),
        ),
      )
      .finally(() => {
        primed = true;
      });
  };

  const onInitialize = (message: JSONRPCMessage & RpcRequest): boolean => {
    const identity = clientIdentity(message.params);
    if (options.ctxFor) {
      try {
        const built = options.ctxFor(identity);
        validateContext(built);
        ctx = built;
      } catch (error) {
        toClient(
          errorResponse(
            message.id,
            INTERNAL_ERROR,
            `toolgate: cannot build the call context: ${error instanceof Error ? error.message : String(error)}`,
          ),
        );
        return false;
      }
    }
    if (elicitation && ctx && supportsFormElicitation(identity)) {
      unbind?.();
      unbind = elicitation.bind(ctx.sessionId, async (request) => {
        if (isClosed || !client) return undefined;
        try {
          return elicitationAnswer(
            await ownDown.send(client, 'elicitation/create', elicitationParams(request)),
          );
        } catch (error) {
          // The client could not ask: the next approver (the configured strategy) decides, or nobody ⇒ deny.
          report(error);
          return undefined;
        }
      });
    }
    return true;
  };

  const answerCall = (id: RequestId, decision: Decision) => {
    toClient({ jsonrpc: '2.0', id, result: denyResult(envelopeOf(decision)) } as JSONRPCMessage);
  };

  const judgeCall = async (message: JSONRPCMessage & RpcRequest) => {
    const params = message.params ?? {};
    const call = {
      tool: typeof params.name === 'string' ? params.name : '',
      args: (params.arguments ?? {}) as Record<string, unknown>,
    };
    if (!ctx) {
      toClient(errorResponse(message.id, INTERNAL_ERROR, 'toolgate: tools/call before initialize'));
      return;
    }
    const state = { cancelled: false };
    judging.set(message.id, state);
    let decision: Decision;
    try {
      if (!primed && priming) await priming;
      decision = await guard.check(call, ctx);
    } catch (error) {
      // core rejects only on programming errors; the call still must not go through.
      report(error);
      toClient({
        jsonrpc: '2.0',
        id: message.id,
        result: denyResult({
          error: 'Tool call rejected: the guard failed',
          code: 'PLUGIN_ERROR',
          tool_name: call.tool,
          hint: 'The guard could not evaluate this call; report the error to the user.',
          decision_id: '',
        }),
      } as JSONRPCMessage);
      return;
    } finally {
      judging.delete(message.id);
    }
    if (state.cancelled || isClosed) return;
    if (decision.action !== 'allow') answerCall(message.id, decision);
    // A shell tool's call analysis could not prove runs its command wrapped in the OS sandbox.
    else if (decision.sandboxed)
      relayRequest({ ...message, params: { ...message.params, arguments: decision.sandboxed.args } });
    // The server runs the call with the arguments the guard normalised, if any (the paths it checked).
    else if (decision.args)
      relayRequest({ ...message, params: { ...message.params, arguments: decision.args } } as typeof message);
    else relayRequest(message);
  };

  const fromClient = (message: JSONRPCMessage) => {
    if (isClosed) return;
    if (isRequest(message)) {
      if (message.method === 'tools/call') {
        void judgeCall(message);
        return;
      }
      if (message.method === 'initialize' && !onInitialize(message)) return;
      relayRequest(message);
      return;
    }
    if (isResponse(message)) {
      if (!ownDown.settle(message)) toUpstream(message);
      return;
    }
    if (!isNotification(message)) return;
    if (message.method === 'notifications/cancelled') {
      const pending = judging.get((message.params as { requestId?: RequestId } | undefined)?.requestId ?? '');
      if (pending) {
        pending.cancelled = true;
        return;
      }
    }
    toUpstream(message);
    if (message.method === 'notifications/initialized' && serverHasTools) prime();
  };

  const fromUpstream = (message: JSONRPCMessage) => {
    if (isClosed) return;
    if (isResponse(message)) {
      if (ownUp.settle(message)) return;
      const method = relayed.get(message.id);
      relayed.delete(message.id);
      const result = message.result;
      if (method === 'tools/list' && result && Array.isArray(result.tools) && ctx) {
        toClient({
          ...message,
          result: { ...result, tools: guard.describeTools(result.tools as ToolDescriptor[], ctx) },
        } as JSONRPCMessage);
        return;
      }
      if (method === 'initialize') {
        if (typeof result?.protocolVersion === 'string')
          upstream?.setProtocolVersion?.(result.protocolVersion);
        // A server without tools has nothing to classify: no priming request it would only reject.
        const capabilities = result?.capabilities as Record<string, unknown> | undefined;
        serverHasTools = capabilities?.tools !== undefined;
      }
      toClient(message);
      return;
    }
    if (isNotification(message) && message.method === 'notifications/tools/list_changed') prime();
    toClient(message);
  };

  const close = (by: NonNullable<Gateway['closedBy']> = 'local'): Promise<void> => {
    // Assigned before any transport is closed: closing one side calls back into close() synchronously.
    if (closing) return closing;
    closedBy = by;
    isClosed = true;
    closing = closed;
    unbind?.();
    // A context built per connection (ctxFor) is this connection's session: forget its grants with it.
    // A fixed ctx may be shared by several gateways, so its session is left to the caller.
    if (options.ctxFor && ctx) guard.endSession(ctx.sessionId);
    const gone = new Error('the gateway closed');
    ownUp.failAll(gone);
    ownDown.failAll(gone);
    void Promise.allSettled([upstream?.close(), client?.close()]).then(() => resolveClosed());
    return closing;
  };

  const upstreamGone = () => {
    if (isClosed) return;
    const message = 'toolgate: the upstream MCP server closed the connection (it exited or crashed)';
    report(new Error(message));
    // Answer every relayed request before closing, so no client waits on an answer that cannot come.
    if (client)
      for (const id of relayed.keys()) client.send(errorResponse(id, UPSTREAM_CLOSED, message)).catch(report);
    relayed.clear();
    void close('upstream');
  };

  return {
    get ctx() {
      return ctx;
    },
    get closedBy() {
      return closedBy;
    },
    closed,
    close: () => close('local'),
    async connect(clientTransport: Transport) {
      if (client || isClosed)
        throw new ToolgateError(
          'TOOLGATE_ERR_INVALID_OPTIONS',
          'createGateway: a gateway serves one client connection; create another gateway for another client',
        );
      client = clientTransport;
      try {
        upstream = await makeUpstream();
      } catch (error) {
        isClosed = true;
        resolveClosed();
        throw new ToolgateError(
          'TOOLGATE_ERR_IO',
          `createGateway: cannot load the upstream transport: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      upstream.onmessage = fromUpstream;
      upstream.onerror = report;
      upstream.onclose = upstreamGone;
      try {
        await upstream.start();
      } catch (error) {
        isClosed = true;
        resolveClosed();
        throw new ToolgateError(
          'TOOLGATE_ERR_IO',
          `createGateway: cannot start the upstream MCP server: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      client.onmessage = fromClient;
      client.onerror = report;
      client.onclose = () => void close('client');
      await client.start();
    },
  };
}

export type { Gateway, GatewayOptions } from './gatewayOptions.js';
