import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallContext,
  describeValue,
  type Guard,
  type ToolDescriptor,
  ToolgateError,
  validateContext,
} from '@toolgate/core';
import { denyResult, envelopeOf } from './denyResult.js';
import { type UpstreamOptions, upstreamFactory } from './upstream.js';

export interface HttpApiOptions {
  guard: Guard;
  /** The context of every call; `session_id` in a request (seed 000's `MCP_SESSION_ID`) replaces its sessionId. */
  ctx: CallContext;
  /** The MCP server whose tools the API exposes. */
  upstream: UpstreamOptions | Transport;
  /** The bearer token every request must carry (`Authorization: Bearer <token>`), at least 16 characters. */
  token: string;
  /** Loopback only: `127.0.0.1` (default) or `::1`. */
  host?: '127.0.0.1' | '::1';
  /** Default 0: any free port. */
  port?: number;
  /** Largest request body accepted (default 1 MiB). */
  maxBodyBytes?: number;
}

export interface HttpApi {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  close(): Promise<void>;
}

const SESSION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function invalid(field: string, value: unknown, expected: string): ToolgateError {
  return new ToolgateError(
    'TOOLGATE_ERR_INVALID_OPTIONS',
    `serveHttpApi: option ${field} must be ${expected}, got ${describeValue(field === 'token' ? '<redacted>' : value)}`,
    { field },
  );
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

/** Compares in constant time, so the token cannot be guessed byte by byte from response timings. */
function tokenMatches(header: string | undefined, token: Buffer): boolean {
  const m = /^Bearer ([^\s]+)$/.exec(header ?? '');
  if (!m) return false;
  const given = Buffer.from(m[1]!);
  return given.length === token.length && timingSafeEqual(given, token);
}

function readBody(req: IncomingMessage, max: number): Promise<string | null> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) {
        resolve(null);
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * Seed 000's code-execution HTTP API: the tools of an MCP server as per-tool endpoints that code written by
 * the model calls, "secured with bearer token authentication", every call judged by the guard first.
 * `GET /api/spec` lists the tools (descriptions enhanced by the guard, as `get_api_spec` does);
 * `POST /api/tools/<name>` with `{"args": {…}, "session_id"?: "…"}` runs one call: 200 with the tool's
 * result, 403 with the rejection envelope, 401 without the token. Listens on loopback only.
 *
 * @example
 * ```ts
 * const api = await serveHttpApi({ guard, ctx, token: process.env.API_TOKEN!, upstream: { command: 'mcp-server-filesystem', args: ['/ws'] } });
 * // curl -H "Authorization: Bearer $API_TOKEN" -d '{"args":{"path":"/ws/a.txt"}}' $URL/api/tools/read_text_file
 * ```
 */
export async function serveHttpApi(options: HttpApiOptions): Promise<HttpApi> {
  if (options === null || typeof options !== 'object') throw invalid('(options)', options, 'an object');
  const { guard, ctx } = options;
  if (!guard || typeof guard.check !== 'function')
    throw invalid('guard', guard, 'a Guard from createGuard()');
  validateContext(ctx);
  if (typeof options.token !== 'string' || options.token.length < 16 || /\s/.test(options.token))
    throw invalid('token', options.token, 'a string of at least 16 characters without spaces');
  const host = options.host ?? '127.0.0.1';
  if (host !== '127.0.0.1' && host !== '::1')
    throw invalid('host', host, '"127.0.0.1" or "::1" (loopback only)');
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw invalid('port', port, 'a port number');
  const max = options.maxBodyBytes ?? 1024 * 1024;
  if (!Number.isInteger(max) || max <= 0) throw invalid('maxBodyBytes', max, 'a positive integer');
  const token = Buffer.from(options.token);

  const client = new Client({ name: 'toolgate-http-api', version: '1' });
  await client.connect(await upstreamFactory(options.upstream)());
  const listed = (await client.listTools()).tools as ToolDescriptor[];
  // Classification from the server's own schemas and annotations is learned here, once.
  const described = guard.describeTools(listed, ctx);
  const names = new Set(described.map((t) => t.name));

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (!tokenMatches(req.headers.authorization, token))
      return send(res, 401, { error: 'missing or wrong bearer token' }, { 'www-authenticate': 'Bearer' });
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method === 'GET' && path === '/api/spec')
      return send(res, 200, {
        tools: described.map((t) => ({ ...t, endpoint: `/api/tools/${encodeURIComponent(t.name)}` })),
      });
    const m = /^\/api\/tools\/([^/]+)$/.exec(path);
    if (!m) return send(res, 404, { error: 'no such endpoint' });
    if (req.method !== 'POST') return send(res, 405, { error: 'use POST' }, { allow: 'POST' });
    const tool = decodeURIComponent(m[1]!);
    if (!names.has(tool)) return send(res, 404, { error: `no tool ${JSON.stringify(tool)}` });
    const text = await readBody(req, max);
    if (text === null) return send(res, 413, { error: `body larger than ${max} bytes` });
    let body: { args?: unknown; session_id?: unknown };
    try {
      body = text === '' ? {} : (JSON.parse(text) as typeof body);
    } catch {
      return send(res, 400, { error: 'body is not JSON' });
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      return send(res, 400, { error: 'body must be {"args": {…}, "session_id"?: "…"}' });
    const args = body.args ?? {};
    if (args === null || typeof args !== 'object' || Array.isArray(args))
      return send(res, 400, { error: '"args" must be an object' });
    const sid = body.session_id;
    if (sid !== undefined && (typeof sid !== 'string' || !SESSION_ID.test(sid)))
      return send(res, 400, { error: '"session_id" must be 1-128 characters of [A-Za-z0-9._:-]' });
    const callCtx = sid === undefined ? ctx : { ...ctx, sessionId: sid };
    const decision = await guard.check({ tool, args: args as Record<string, unknown> }, callCtx);
    if (decision.action !== 'allow') return send(res, 403, denyResult(envelopeOf(decision)));
    // The server runs the call with the arguments the guard checked (Folder Guard's normalised paths).
    const result = await client.callTool({
      name: tool,
      arguments: decision.args ?? (args as Record<string, unknown>),
    });
    return send(res, 200, result);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, 502, { error: 'the tool call failed' });
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const url = `http://${host === '::1' ? '[::1]' : host}:${address.port}`;
  return {
    url,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await client.close();
    },
  };
}
