import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedClient } from '../src/demo/scriptedClient.js';
import { childTransport } from './support/childTransport.js';
import { exited, FILESYSTEM_SERVER, spawnCli } from './support/cli.js';

// `toolgate mcp --console` and `toolgate console` as users run them (the built CLI, real processes, the real
// filesystem server). The page itself is driven in Chromium by @toolgate/console's tests; here the console's
// API answers, with the token the command printed.
let root: string;
let ws: string;
let policy: string;
let audit: string;

beforeAll(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-console-cli-')));
  ws = join(root, 'ws');
  mkdirSync(join(ws, 'secrets'), { recursive: true });
  policy = join(root, 'policy.yaml');
  audit = join(root, 'audit.jsonl');
  writeFileSync(
    policy,
    [
      'default: deny',
      'rules:',
      '  - { pattern: "<workspace>/**", access: write }',
      '  - { pattern: "<workspace>/secrets/**", access: prompt }',
      '',
    ].join('\n'),
  );
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Reads stderr until the console printed its address, login link and token. */
function consoleLines(
  child: ReturnType<typeof spawnCli>,
): Promise<{ url: string; login: string; token: string }> {
  return new Promise((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`no console address on stderr:\n${err}`)), 20_000);
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      const url = /toolgate console: (http:\/\/127\.0\.0\.1:\d+)\n/.exec(err)?.[1];
      const login = /log in \(once, within 5 minutes\): (\S+)\n/.exec(err)?.[1];
      const token = /API token \(.*\): (\S+)\n/.exec(err)?.[1];
      if (url && login && token) {
        clearTimeout(timer);
        resolve({ url, login, token });
      }
    });
  });
}

const text = (r: Record<string, unknown>) =>
  ((r.result as { content: Array<{ text: string }> }).content ?? []).map((c) => c.text).join('');

async function pendingIds(url: string, token: string, n: number): Promise<string[]> {
  for (let i = 0; i < 200; i++) {
    const r = await fetch(`${url}/api/pending`, { headers: { authorization: `Bearer ${token}` } });
    const { pending } = (await r.json()) as { pending: Array<{ id: string; tool: string }> };
    if (pending.length >= n) return pending.map((p) => p.id);
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error('no question reached the console');
}

const answer = (url: string, token: string, id: string, body: Record<string, unknown>) =>
  fetch(`${url}/api/approvals/${id}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('toolgate mcp --console and toolgate console (the built CLI)', () => {
  it('mcp --console: a prompt waits in the console; approved for the session there, the call runs; the next one in the folder passes unasked; a denial reaches the client', async () => {
    const child = spawnCli(
      [
        'mcp',
        '--dialect',
        'toolgate',
        '--policy',
        policy,
        '--cwd',
        ws,
        '--audit',
        audit,
        '--console',
        '0',
        '--',
        process.execPath,
        FILESYSTEM_SERVER,
        root,
      ],
      { ...process.env, HOME: root },
    );
    const printed = consoleLines(child);
    const client = new ScriptedClient(childTransport(child));
    await client.start();
    await client.initialize({});
    const { url, login, token } = await printed;
    const call = (name: string, args: Record<string, unknown>) =>
      client.request('tools/call', { name, arguments: args });

    const first = call('write_file', { path: join(ws, 'secrets', 'a.txt'), content: 'a' });
    const [id] = await pendingIds(url, token, 1);
    expect((await answer(url, token, id!, { approved: true, grant: 'subtree', by: 'ops' })).status).toBe(200);
    expect(text(await first)).toMatch(/Successfully wrote/);
    // Covered by the session grant: no question.
    expect(text(await call('write_file', { path: join(ws, 'secrets', 'b.txt'), content: 'b' }))).toMatch(
      /Successfully wrote/,
    );
    const pending = await fetch(`${url}/api/pending`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await pending.json()) as { pending: unknown[] }).pending).toEqual([]);
    // A question about another operation (a read is approved on its own) — denied in the console.
    const third = call('read_text_file', { path: join(ws, 'secrets', 'a.txt') });
    const [id3] = await pendingIds(url, token, 1);
    expect((await answer(url, token, id3!, { approved: false, reason: 'not now' })).status).toBe(200);
    const denied = (await third).result as { isError: boolean; content: Array<{ text: string }> };
    expect(denied.isError).toBe(true);
    expect(denied.content[0]!.text).toContain('not now');
    // The login link printed works once (a browser session cookie), and the trail the console reads verifies.
    const loggedIn = await fetch(login, { redirect: 'manual' });
    expect(loggedIn.status).toBe(200);
    expect(loggedIn.headers.get('set-cookie')).toMatch(/HttpOnly; SameSite=Strict/);
    expect((await fetch(login, { redirect: 'manual' })).status).toBe(401);
    const verify = await fetch(`${url}/api/audit/verify`, { headers: { authorization: `Bearer ${token}` } });
    expect(await verify.json()).toMatchObject({ ok: true, records: 3 });
    child.stdin.end();
    expect(await exited(child)).toBe(0);
  }, 60_000);

  it('toolgate console: the audit trail and explain on their own; --console-host without --console is a usage error', async () => {
    const child = spawnCli(
      ['console', '--dialect', 'toolgate', '--policy', policy, '--cwd', ws, '--audit', audit],
      {
        ...process.env,
        HOME: root,
      },
    );
    const printedLogin = consoleLines(child);
    const { url, token } = await printedLogin;
    const r = await fetch(`${url}/api/audit?decision=deny`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const view = (await r.json()) as { records: Array<{ decision: string }>; stats: { total: number } };
    expect(view.records.map((x) => x.decision)).toEqual(['deny']);
    expect((await fetch(`${url}/api/pending`)).status).toBe(401);
    // Explain for the policy, in a browser session opened with the printed link.
    const { login } = await printedLogin;
    const cookie = ((await fetch(login, { redirect: 'manual' })).headers.get('set-cookie') ?? '').split(
      ';',
    )[0]!;
    const page = await fetch(
      `${url}/explain?path=${encodeURIComponent(join(root, 'elsewhere.txt'))}&op=write`,
      {
        headers: { cookie },
      },
    );
    expect(await page.text()).toMatch(/decision: DENY/);
    const twin = await fetch(`${url}/explain?path=${encodeURIComponent(join(ws, 'a.txt'))}&op=write`, {
      headers: { cookie },
    });
    expect(await twin.text()).toMatch(/decision: ALLOW/);
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
    const bad = spawnCli(['mcp', '--console-host', '0.0.0.0', '--', 'true'], { ...process.env, HOME: root });
    let err = '';
    bad.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    expect(await exited(bad)).toBe(2);
    expect(err).toMatch(/--console-host needs --console/);
    // A port already taken is a usage error naming it.
    const holder = createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    const taken = (holder.address() as { port: number }).port;
    const busy = spawnCli(
      ['console', '--dialect', 'toolgate', '--policy', policy, '--cwd', ws, '--port', String(taken)],
      {
        ...process.env,
        HOME: root,
      },
    );
    let busyErr = '';
    busy.stderr.on('data', (d: Buffer) => {
      busyErr += d.toString();
    });
    expect(await exited(busy)).toBe(2);
    expect(busyErr).toMatch(
      new RegExp(`--console/--port ${taken}: cannot listen on 127.0.0.1 \\(EADDRINUSE\\)`),
    );
    await new Promise((r) => holder.close(r));
  }, 60_000);

  it('toolgate console --redis: the question of a gateway on the same Redis (toolgate mcp --redis) is answered in the console, once', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => resolve(p));
      });
    });
    const redis = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    );
    try {
      const redisUrl = `redis://127.0.0.1:${port}`;
      for (let i = 0; i < 100; i++) {
        const up = await new Promise<boolean>((resolve) => {
          const s = connect(port, '127.0.0.1');
          s.once('connect', () => {
            s.destroy();
            resolve(true);
          });
          s.once('error', () => resolve(false));
        });
        if (up) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const web = spawnCli(
        ['console', '--dialect', 'toolgate', '--policy', policy, '--cwd', ws, '--redis', redisUrl],
        {
          ...process.env,
          HOME: root,
        },
      );
      const { url, token } = await consoleLines(web);
      const gateway = spawnCli(
        [
          'mcp',
          '--dialect',
          'toolgate',
          '--policy',
          policy,
          '--cwd',
          ws,
          '--redis',
          redisUrl,
          '--',
          process.execPath,
          FILESYSTEM_SERVER,
          root,
        ],
        { ...process.env, HOME: root },
      );
      const client = new ScriptedClient(childTransport(gateway));
      await client.start();
      await client.initialize({});
      const pending = client.request('tools/call', {
        name: 'write_file',
        arguments: { path: join(ws, 'secrets', 'fleet.txt'), content: 'f' },
      });
      const [id] = await pendingIds(url, token, 1);
      expect((await answer(url, token, id!, { approved: true, by: 'fleet-ops' })).status).toBe(200);
      expect((await answer(url, token, id!, { approved: false, by: 'late' })).status).toBe(409);
      expect(text(await pending)).toMatch(/Successfully wrote/);
      gateway.stdin.end();
      expect(await exited(gateway)).toBe(0);
      web.kill('SIGTERM');
      expect(await exited(web)).toBe(0);
    } finally {
      redis.kill('SIGKILL');
    }
  }, 60_000);
});
