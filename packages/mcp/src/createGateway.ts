import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import {
  type Decision,
  sandboxNotice,
  type ToolDescriptor,
  ToolgateError,
  validateContext,
} from '@toolgate/core';
import { clientIdentity, supportsFormElicitation } from './clientIdentity.js';
import { denyResult, envelopeOf } from './denyResult.js';
import { elicitationAnswer, elicitationParams } from './elicitationRequest.js';
import { checkOptions, type Gateway, type GatewayOptions } from './gatewayOptions.js';
import {
  errorResponse,
  INTERNAL_ERROR,
  INVALID_REQUEST,
  isNotification,
  isRequest,
  isResponse,
  MALFORMED_RESPONSE,
  PARSE_ERROR,
  REQUEST_TIMEOUT,
  type RequestId,
  type RpcRequest,
  UPSTREAM_CLOSED,
} from './jsonRpc.js';
import { DEFAULT_MAX_FRAME_BYTES, type MalformedFrame } from './lineTransport.js';
import { OwnRequests } from './ownRequests.js';
import { upstreamFactory } from './upstream.js';

interface Relayed {
  method: string;
  timer: NodeJS.Timeout;
  progressToken?: string | number;
  /** A sandboxed call: the text added to its result. */
  notice?: string;
}

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
  const maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  const makeUpstream = upstreamFactory(options.upstream, maxFrameBytes);
  const primeTimeoutMs = options.primeTimeoutMs ?? 10_000;
  const requestTimeoutMs = options.requestTimeoutMs ?? 120_000;
  let restartsLeft = options.restart ?? 0;
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
  // Client requests relayed upstream and not answered yet: answered with an error if the server goes away,
  // answers garbage or nothing within the request timeout, so no client waits forever.
  const relayed = new Map<RequestId, Relayed>();
  const byProgressToken = new Map<string | number, RequestId>();
  // The client's own initialize request: a restarted server is initialised with the same parameters.
  let initializeParams: Record<string, unknown> | undefined;
  let restarting: Promise<void> | undefined;
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
    if (restarting) {
      void restarting.then(() => toUpstream(message));
      return;
    }
    upstream.send(message).catch((error: unknown) => {
      report(error);
      if (isRequest(message))
        answerRelayed(
          message.id,
          UPSTREAM_CLOSED,
          `toolgate: could not reach the upstream MCP server: ${String(error)}`,
        );
    });
  };

  /** Settles a relayed request with an error, once: the server's late answer is then dropped. */
  const answerRelayed = (id: RequestId, code: number, text: string): boolean => {
    const entry = forget(id);
    if (!entry) return false;
    toClient(errorResponse(id, code, text));
    return true;
  };
  const forget = (id: RequestId): Relayed | undefined => {
    const entry = relayed.get(id);
    if (!entry) return undefined;
    relayed.delete(id);
    clearTimeout(entry.timer);
    if (entry.progressToken !== undefined) byProgressToken.delete(entry.progressToken);
    return entry;
  };
  const startTimer = (id: RequestId, method: string): NodeJS.Timeout => {
    const timer = setTimeout(() => {
      if (
        answerRelayed(
          id,
          REQUEST_TIMEOUT,
          `toolgate: the upstream MCP server did not answer ${method} within ${requestTimeoutMs} ms`,
        )
      ) {
        report(new Error(`${method} (id ${JSON.stringify(id)}) timed out after ${requestTimeoutMs} ms`));
        toUpstream({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: id, reason: 'toolgate: request timed out' },
        } as JSONRPCMessage);
      }
    }, requestTimeoutMs);
    timer.unref();
    return timer;
  };
  const relayRequest = (message: JSONRPCMessage & RpcRequest, notice?: string) => {
    const token = (message.params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
    const progressToken = typeof token === 'string' || typeof token === 'number' ? token : undefined;
    if (progressToken !== undefined) byProgressToken.set(progressToken, message.id);
    relayed.set(message.id, {
      method: message.method,
      timer: startTimer(message.id, message.method),
      ...(progressToken !== undefined ? { progressToken } : {}),
      ...(notice !== undefined ? { notice } : {}),
    });
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
    initializeParams = message.params;
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
      relayRequest(
        { ...message, params: { ...message.params, arguments: decision.sandboxed.args } },
        sandboxNotice(decision),
      );
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
      const entry = forget(message.id);
      if (!entry) {
        // Already answered (timed out, or the server answered twice), or never asked: not relayed.
        report(
          new Error(`dropped a response for unknown or settled request id ${JSON.stringify(message.id)}`),
        );
        return;
      }
      const method = entry.method;
      const result = message.result;
      if (method === 'tools/list' && result && Array.isArray(result.tools) && ctx) {
        toClient({
          ...message,
          result: { ...result, tools: guard.describeTools(result.tools as ToolDescriptor[], ctx) },
        } as JSONRPCMessage);
        return;
      }
      // A sandboxed call's result tells the model it ran confined (issue 22), so a refusal inside reads as
      // the policy speaking.
      if (entry.notice !== undefined && result && Array.isArray(result.content)) {
        toClient({
          ...message,
          result: { ...result, content: [...result.content, { type: 'text', text: entry.notice }] },
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
    if (isNotification(message) && message.method === 'notifications/progress') {
      // A request that reports progress is alive: its timeout starts again.
      const token = (message.params as { progressToken?: string | number } | undefined)?.progressToken;
      const id = token === undefined ? undefined : byProgressToken.get(token);
      const entry = id === undefined ? undefined : relayed.get(id);
      if (id !== undefined && entry) {
        clearTimeout(entry.timer);
        entry.timer = startTimer(id, entry.method);
      }
    }
    toClient(message);
  };

  // The server wrote something that is not a JSON-RPC message (or one over the frame limit): the request it
  // answers, when its id can be read, gets an error now instead of waiting for its timeout.
  const fromUpstreamMalformed = (frame: MalformedFrame) => {
    if (frame.id === undefined) return;
    const text = `toolgate: the upstream MCP server answered with a malformed message: ${frame.reason}`;
    if (answerRelayed(frame.id, MALFORMED_RESPONSE, text)) return;
    ownUp.settle({ jsonrpc: '2.0', id: frame.id, error: { code: MALFORMED_RESPONSE, message: text } });
  };
  // The client sent something that is not a JSON-RPC message: JSON-RPC's own error answers.
  const fromClientMalformed = (frame: MalformedFrame) => {
    const code = frame.reason.startsWith('a line that is not JSON') ? PARSE_ERROR : INVALID_REQUEST;
    toClient({
      jsonrpc: '2.0',
      id: frame.id ?? null,
      error: { code, message: `toolgate: ${frame.reason}` },
    } as unknown as JSONRPCMessage);
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
    for (const entry of relayed.values()) clearTimeout(entry.timer);
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
    // Answer every relayed request first, so no client waits on an answer that cannot come.
    for (const id of [...relayed.keys()]) answerRelayed(id, UPSTREAM_CLOSED, message);
    ownUp.failAll(new Error(message));
    if (restartsLeft > 0 && initializeParams) {
      restartsLeft--;
      restarting = restart().then(
        () => {
          restarting = undefined;
        },
        (error: unknown) => {
          restarting = undefined;
          report(new Error(`could not restart the upstream MCP server: ${String(error)}`));
          void close('upstream');
        },
      );
      return;
    }
    void close('upstream');
  };

  /** A new server, initialised as the client initialised the last one; then its tools are listed again. */
  const restart = async () => {
    const next = await makeUpstream();
    attach(next);
    await next.start();
    upstream = next;
    const result = await ownUp.send(next, 'initialize', initializeParams ?? {}, primeTimeoutMs);
    if (typeof result.protocolVersion === 'string') next.setProtocolVersion?.(result.protocolVersion);
    await next.send({ jsonrpc: '2.0', method: 'notifications/initialized' } as JSONRPCMessage);
    report(new Error('the upstream MCP server was restarted'));
    if (serverHasTools) prime();
  };

  const attach = (transport: Transport) => {
    transport.onmessage = fromUpstream;
    transport.onerror = report;
    transport.onclose = () => {
      if (transport === upstream) upstreamGone();
    };
    (transport as { onmalformed?: (f: MalformedFrame) => void }).onmalformed = fromUpstreamMalformed;
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
      attach(upstream);
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
      (client as { onmalformed?: (f: MalformedFrame) => void }).onmalformed = fromClientMalformed;
      client.onclose = () => void close('client');
      await client.start();
    },
  };
}

export type { Gateway, GatewayOptions } from './gatewayOptions.js';
