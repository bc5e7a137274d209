import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallContext, createGuard } from '@toolgate/core';
import { folderRules } from '@toolgate/folder-rules';
import { type HttpApi, serveHttpApi } from '@toolgate/mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Seed 000: "In code execution mode, MCP tools are accessed via HTTP API (per-tool endpoints)" and "Layer 3:
// Bearer Token Auth (Code Execution) - HTTP API endpoints secured with bearer token authentication" — with a
// real filesystem MCP server behind it and a real HTTP client (fetch) on 127.0.0.1.
const FILESYSTEM_SERVER = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-filesystem/dist/index.js',
);
const TOKEN = 'test-token-0123456789abcdef';
let root: string;
let ws: string;
let api: HttpApi;

beforeAll(async () => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'tg-http-api-')));
  ws = join(root, 'ws');
  mkdirSync(join(ws, 'learnings'), { recursive: true });
  mkdirSync(join(ws, 'execution'));
  writeFileSync(join(ws, 'learnings', 'n.md'), 'a learning\n');
  writeFileSync(join(root, 'secret.txt'), 'top secret\n');
  const ctx: CallContext = {
    sessionId: 'default',
    agentId: 'a',
    cwd: root,
    workspace: ws,
    home: root,
    env: {},
  };
  const guard = createGuard({
    plugins: [
      folderRules({
        dialect: 'folderguard',
        file: 'fg.json',
        source: JSON.stringify({ readPaths: [join(ws, 'learnings')], writePaths: [join(ws, 'execution')] }),
      }),
    ],
  });
  api = await serveHttpApi({
    guard,
    ctx,
    token: TOKEN,
    upstream: { command: process.execPath, args: [FILESYSTEM_SERVER, root], stderr: 'ignore' },
  });
});
afterAll(async () => {
  await api?.close();
  rmSync(root, { recursive: true, force: true });
});

const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const call = (tool: string, body: unknown, headers: Record<string, string> = auth) =>
  fetch(`${api.url}/api/tools/${tool}`, { method: 'POST', headers, body: JSON.stringify(body) });

describe('seed 000: the bearer-token HTTP API', () => {
  it('listens on loopback and refuses every request without the right bearer token', async () => {
    expect(api.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    for (const headers of [
      {},
      { authorization: 'Bearer wrong-token-0123456789ab' },
      { authorization: TOKEN },
    ]) {
      const r = await fetch(`${api.url}/api/spec`, { headers });
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toBe('Bearer');
    }
    const r = await call('read_text_file', { args: { path: join(ws, 'learnings', 'n.md') } }, {});
    expect(r.status).toBe(401);
  });

  it('"discovered through get_api_spec": the spec lists per-tool endpoints with the enhanced descriptions', async () => {
    const r = await fetch(`${api.url}/api/spec`, { headers: auth });
    expect(r.status).toBe(200);
    const spec = (await r.json()) as { tools: { name: string; endpoint: string; description?: string }[] };
    const write = spec.tools.find((t) => t.name === 'write_file');
    expect(write?.endpoint).toBe('/api/tools/write_file');
    expect(write?.description).toContain('You can ONLY write to these directories:');
    expect(write?.description).toContain(
      "✅ **SPECIAL ACCESS:** The 'Downloads/' folder is always accessible.",
    );
  });

  it('runs allowed calls on the normalised path, refuses the rest with the envelope (403), never touching them', async () => {
    // Relative to the workspace (Folder Guard's rule), though the server runs elsewhere: the checked absolute
    // path is what reaches it.
    const ok = await call('read_text_file', { args: { path: 'learnings/n.md' } });
    expect(ok.status).toBe(200);
    expect(JSON.stringify(await ok.json())).toContain('a learning');
    const denied = await call('read_text_file', { args: { path: join(root, 'secret.txt') } });
    expect(denied.status).toBe(403);
    const body = (await denied.json()) as { isError: boolean; content: { text: string }[] };
    expect(body.isError).toBe(true);
    expect(JSON.parse(body.content[0]!.text)).toMatchObject({ code: 'PATH_DENIED' });
    const w = await call('write_file', { args: { path: join(ws, 'learnings', 'x.md'), content: 'x' } });
    expect(w.status).toBe(403);
    const traversal = await call('read_text_file', { args: { path: 'learnings/../../secret.txt' } });
    expect(traversal.status).toBe(403);
    const written = await call('write_file', {
      args: { path: 'execution/out.txt', content: 'done' },
      session_id: 'wf-A',
    });
    expect(written.status).toBe(200);
    expect(readFileSync(join(ws, 'execution', 'out.txt'), 'utf8')).toBe('done');
  });

  it('rejects malformed requests with 4xx, never a crash', async () => {
    expect((await call('no_such_tool', { args: {} })).status).toBe(404);
    expect((await call('read_text_file', { args: [] })).status).toBe(400);
    expect((await call('read_text_file', { args: {}, session_id: '../../etc' })).status).toBe(400);
    const notJson = await fetch(`${api.url}/api/tools/read_text_file`, {
      method: 'POST',
      headers: auth,
      body: '{',
    });
    expect(notJson.status).toBe(400);
    expect((await fetch(`${api.url}/api/tools/read_text_file`, { headers: auth })).status).toBe(405);
    await expect(
      serveHttpApi({
        guard: createGuard({ plugins: [] }),
        ctx: { sessionId: 's', agentId: 'a', cwd: ws, workspace: ws, home: root, env: {} },
        token: 'short',
        upstream: { command: process.execPath, args: [FILESYSTEM_SERVER, root] },
      }),
    ).rejects.toThrow(/token/);
  });
});
