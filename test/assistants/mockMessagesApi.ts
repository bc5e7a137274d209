import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A loopback stand-in for the Anthropic Messages API (POST /v1/messages), enough to drive a coding assistant
// through scripted tool calls offline. The script is a list of assistant turns; the turn answered is chosen by
// the conversation the request carries (its number of assistant messages), not by a request counter, so a
// retried request or a side request (a title, a quota probe: a request that offers no tools) never advances
// the script. Streaming requests (`stream: true`) get the SSE event sequence of the real API
// (message_start, content_block_start/delta/stop per block — text_delta or input_json_delta — message_delta,
// message_stop), others one JSON message. Every request is recorded, body verbatim, so a test can assert what
// the assistant sent back to the "model" (tool results included).
//
// The same server is also the HTTP(S) proxy the assistant is given (HTTPS_PROXY): a CONNECT is recorded and
// refused, so nothing reaches the network and the test can see what the assistant tried to reach.

export type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; name: string; input: Record<string, unknown> };

export interface Turn {
  content: Block[];
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body as sent. */
  body: string;
  /** The parsed body when it was JSON. */
  json?: MessagesRequest;
}

export interface MessagesRequest {
  model?: string;
  stream?: boolean;
  tools?: { name: string }[];
  messages?: { role: string; content: string | ContentBlock[] }[];
  [key: string]: unknown;
}

export interface ContentBlock {
  type: string;
  id?: string;
  name?: string;
  input?: unknown;
  text?: string;
  tool_use_id?: string;
  content?: string | ContentBlock[];
  is_error?: boolean;
}

export interface MockMessagesApi {
  /** http://127.0.0.1:PORT — for ANTHROPIC_BASE_URL and as the refusing proxy. */
  url: string;
  requests: RecordedRequest[];
  /** host:port of every CONNECT (HTTPS through the proxy) the client attempted; all refused. */
  connects: string[];
  /** The requests that were answered from the script (they offered tools). */
  scriptedRequests(): RecordedRequest[];
  /** Every tool_result block the client sent, with the tool_use it answers (name and input). */
  toolResults(): ToolResult[];
  close(): Promise<void>;
}

export interface ToolResult {
  toolUseId: string;
  name?: string;
  input?: Record<string, unknown>;
  isError: boolean;
  /** The result's text (string content, or its text blocks joined). */
  text: string;
}

const FINAL: Turn = { content: [{ type: 'text', text: 'Done.' }] };

/** What the client's tools are called in a request, to tell the agent loop from side requests. */
function offersTools(body: MessagesRequest | undefined): boolean {
  return Array.isArray(body?.tools) && body.tools.length > 0;
}

function assistantTurns(body: MessagesRequest): number {
  return (body.messages ?? []).filter((m) => m.role === 'assistant').length;
}

function blockText(content: string | ContentBlock[] | undefined): string {
  if (typeof content === 'string') return content;
  return (content ?? []).map((b) => (b.type === 'text' ? (b.text ?? '') : '')).join('\n');
}

interface ApiBlock {
  type: 'text' | 'tool_use';
  text?: string;
  id?: string;
  name?: string;
  input?: Record<string, unknown>;
}

function toApiBlocks(turn: Turn): ApiBlock[] {
  return turn.content.map((b) =>
    b.type === 'text'
      ? { type: 'text', text: b.text }
      : { type: 'tool_use', id: `toolu_${randomUUID().replaceAll('-', '')}`, name: b.name, input: b.input },
  );
}

function usage(): Record<string, number> {
  return { input_tokens: 10, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function sendMessage(res: ServerResponse, model: string, blocks: ApiBlock[], stream: boolean): void {
  const id = `msg_${randomUUID().replaceAll('-', '')}`;
  const stopReason = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
  if (!stream) {
    sendJson(res, 200, {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: blocks,
      stop_reason: stopReason,
      stop_sequence: null,
      usage: usage(),
    });
    return;
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  const event = (name: string, data: unknown) =>
    res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  event('message_start', {
    type: 'message_start',
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage(), output_tokens: 1 },
    },
  });
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      event('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'text', text: '' },
      });
      event('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'text_delta', text: block.text },
      });
    } else {
      event('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      });
      // The input arrives as partial JSON, in two pieces as the real API splits it.
      const json = JSON.stringify(block.input);
      const cut = Math.floor(json.length / 2);
      for (const partial_json of [json.slice(0, cut), json.slice(cut)])
        event('content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json },
        });
    }
    event('content_block_stop', { type: 'content_block_stop', index });
  });
  event('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: 10 },
  });
  event('message_stop', { type: 'message_stop' });
  res.end();
}

export async function startMockMessagesApi(script: Turn[]): Promise<MockMessagesApi> {
  const requests: RecordedRequest[] = [];
  const connects: string[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: MessagesRequest | undefined;
      try {
        json = body === '' ? undefined : (JSON.parse(body) as MessagesRequest);
      } catch {
        json = undefined;
      }
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, json });
      const path = (req.url ?? '').replace(/^https?:\/\/[^/]+/, '').split('?')[0];
      if (req.method === 'POST' && path === '/v1/messages/count_tokens')
        return sendJson(res, 200, { input_tokens: 10 });
      if (req.method === 'POST' && path === '/v1/messages' && json) {
        const model = typeof json.model === 'string' ? json.model : 'claude-mock';
        const turn = offersTools(json) ? (script[assistantTurns(json)] ?? FINAL) : FINAL;
        return sendMessage(res, model, toApiBlocks(turn), json.stream === true);
      }
      sendJson(res, 404, { type: 'error', error: { type: 'not_found_error', message: `mock: no ${path}` } });
    });
  });
  server.on('connect', (req, socket) => {
    connects.push(req.url ?? '');
    socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    connects,
    scriptedRequests: () =>
      requests.filter(
        (r) => r.method === 'POST' && /\/v1\/messages(\?|$)/.test(r.url) && offersTools(r.json),
      ),
    toolResults() {
      const uses = new Map<string, ContentBlock>();
      const results = new Map<string, ToolResult>();
      for (const r of requests)
        for (const m of r.json?.messages ?? [])
          for (const b of typeof m.content === 'string' ? [] : m.content) {
            if (b.type === 'tool_use' && b.id) uses.set(b.id, b);
            if (b.type === 'tool_result' && b.tool_use_id)
              results.set(b.tool_use_id, {
                toolUseId: b.tool_use_id,
                isError: b.is_error === true,
                text: blockText(b.content),
              });
          }
      return [...results.values()].map((r) => {
        const use = uses.get(r.toolUseId);
        return { ...r, name: use?.name, input: use?.input as Record<string, unknown> | undefined };
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
