import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A loopback stand-in for the Gemini API (generativelanguage.googleapis.com, v1beta) as Gemini CLI calls it
// with `gemini-api-key` auth and GOOGLE_GEMINI_BASE_URL: POST /v1beta/models/{model}:streamGenerateContent
// ?alt=sse (the agent loop: `data: <GenerateContentResponse>` events), :generateContent (side requests: the
// next-speaker check, routing, loop detection — answered with one JSON text that says "the user speaks
// next"), :countTokens. The script is a list of model turns; the turn answered is chosen by the conversation
// the request carries (its number of `model` turns that called a function), not by a request counter, so a
// retried or side request never advances it. Only requests that declare tools are agent-loop requests. Every
// request is recorded, body verbatim, so a test can assert what Gemini CLI sent back to the "model".

export type GeminiPart = { text: string } | { functionCall: { name: string; args: Record<string, unknown> } };

export interface GeminiTurn {
  parts: GeminiPart[];
}

export interface GeminiRequest {
  method: string;
  url: string;
  body: string;
  json?: GenerateRequest;
}

interface Content {
  role?: string;
  parts?: {
    text?: string;
    functionCall?: { id?: string; name: string; args?: Record<string, unknown> };
    functionResponse?: { id?: string; name: string; response?: Record<string, unknown> };
  }[];
}

interface GenerateRequest {
  contents?: Content[];
  tools?: { functionDeclarations?: unknown[] }[];
  [key: string]: unknown;
}

export interface FunctionResult {
  name: string;
  /** The call it answers (the model's functionCall args, matched by order of calls of that name). */
  args?: Record<string, unknown>;
  /** The response object as sent (Gemini CLI: `{output}` or `{error}`), serialized. */
  text: string;
}

export interface MockGeminiApi {
  /** http://127.0.0.1:PORT — for GOOGLE_GEMINI_BASE_URL and as the refusing HTTPS proxy. */
  url: string;
  requests: GeminiRequest[];
  /** host:port of every CONNECT the client attempted through the proxy; all refused. */
  connects: string[];
  scriptedRequests(): GeminiRequest[];
  /** Every functionResponse Gemini CLI sent, with the call it answers (last request's view). */
  functionResults(): FunctionResult[];
  close(): Promise<void>;
}

const FINAL: GeminiTurn = { parts: [{ text: 'Done.' }] };

const offersTools = (body: GenerateRequest | undefined) =>
  Array.isArray(body?.tools) && body.tools.some((t) => (t.functionDeclarations ?? []).length > 0);

/** How far the scripted conversation got: the model turns so far that called a function. */
function modelTurns(body: GenerateRequest): number {
  return (body.contents ?? []).filter(
    (c) => c.role === 'model' && (c.parts ?? []).some((p) => p.functionCall !== undefined),
  ).length;
}

function usage() {
  return { promptTokenCount: 10, candidatesTokenCount: 10, totalTokenCount: 20 };
}

function response(turn: GeminiTurn) {
  return {
    candidates: [{ content: { role: 'model', parts: turn.parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: usage(),
    modelVersion: 'gemini-mock',
  };
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** What a side request is told: the user speaks next, nothing loops, the default model will do. */
const SIDE_ANSWER = JSON.stringify({
  reasoning: 'mock',
  next_speaker: 'user',
  model_choice: 'flash',
  complexity_reasoning: 'mock',
  complexity_score: 1,
  unproductive_state_confidence: 0,
  unproductive_state_analysis: 'mock',
});

export async function startMockGeminiApi(script: GeminiTurn[]): Promise<MockGeminiApi> {
  const requests: GeminiRequest[] = [];
  const connects: string[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: GenerateRequest | undefined;
      try {
        json = body === '' ? undefined : (JSON.parse(body) as GenerateRequest);
      } catch {
        json = undefined;
      }
      requests.push({ method: req.method ?? '', url: req.url ?? '', body, json });
      const path = (req.url ?? '').split('?')[0] ?? '';
      const method = /:(\w+)$/.exec(path)?.[1];
      if (req.method === 'POST' && method === 'countTokens') return sendJson(res, 200, { totalTokens: 10 });
      if (req.method === 'POST' && method === 'streamGenerateContent' && json) {
        const turn = offersTools(json)
          ? (script[modelTurns(json)] ?? FINAL)
          : { parts: [{ text: SIDE_ANSWER }] };
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.write(`data: ${JSON.stringify(response(turn))}\r\n\r\n`);
        res.end();
        return;
      }
      if (req.method === 'POST' && method === 'generateContent' && json) {
        const turn = offersTools(json)
          ? (script[modelTurns(json)] ?? FINAL)
          : { parts: [{ text: SIDE_ANSWER }] };
        return sendJson(res, 200, response(turn));
      }
      sendJson(res, 404, {
        error: { code: 404, message: `mock: no ${req.method} ${path}`, status: 'NOT_FOUND' },
      });
    });
  });
  server.on('connect', (req, socket) => {
    connects.push(req.url ?? '');
    socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const scriptedRequests = () => requests.filter((r) => r.method === 'POST' && offersTools(r.json));
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    connects,
    scriptedRequests,
    functionResults() {
      const last = scriptedRequests().at(-1)?.json;
      const out: FunctionResult[] = [];
      const calls: { name: string; args?: Record<string, unknown> }[] = [];
      for (const c of last?.contents ?? [])
        for (const p of c.parts ?? []) {
          if (p.functionCall) calls.push({ name: p.functionCall.name, args: p.functionCall.args });
          if (p.functionResponse) {
            const i = calls.findIndex((k) => k.name === p.functionResponse!.name);
            const call = i >= 0 ? calls.splice(i, 1)[0] : undefined;
            out.push({
              name: p.functionResponse.name,
              args: call?.args,
              text: JSON.stringify(p.functionResponse.response ?? {}),
            });
          }
        }
      return out;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
