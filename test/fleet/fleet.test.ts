import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { DeskItem } from '@toolgate/approvals';
import { type RedisDesk, redisDesk } from '@toolgate/store-redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../../packages/store-redis/test/helpers/redisServer.js';

// The fleet (issue 27): two real gateway processes, each with approvals over one Redis (questions on
// redisApprovalBus, grants in redisGrantStore), and one answering script on redisDesk.
const CHILD = fileURLToPath(new URL('./fixtures/gatewayChild.ts', import.meta.url));
const TIMEOUT_MS = 2_500;
const SESSION = 'fleet-session';

let redis: TestRedis;
let root: string;
let ws: string;
let desk: RedisDesk;
const gateways: { name: string; client: Client; stderr: string[] }[] = [];
/** Every answer the script gave and won, by question id. */
const answered = new Map<string, { approved: boolean; path: string }>();
let respondedTwice = 0;
/** Paths the script leaves unanswered (the outage phase). */
const silent = (path: string) => path.includes('/outage/');

async function startGateway(name: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', '--conditions=source', CHILD, redis.url, ws, name, String(TIMEOUT_MS), SESSION],
    stderr: 'pipe',
  });
  const stderr: string[] = [];
  transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const client = new Client({ name: `agent-${name}`, version: '1.0.0' });
  await client.connect(transport);
  gateways.push({ name, client, stderr });
  return client;
}

/** The script's rule: a file whose number is even is allowed, odd is denied (once, no grant). */
function answerFor(item: DeskItem): { approved: boolean; grant?: 'directory' } | undefined {
  const path = item.items[0]?.realPath ?? '';
  if (silent(path)) return undefined;
  if (path.includes('/shared/')) return { approved: true, grant: 'directory' };
  const n = Number(/-(\d+)\.txt$/.exec(path)?.[1]);
  return Number.isInteger(n) ? { approved: n % 2 === 0 } : undefined;
}

function write(client: Client, path: string) {
  return client.callTool({ name: 'write_file', arguments: { path, content: 'x' } }, undefined, {
    timeout: 30_000,
  });
}
const text = (r: Awaited<ReturnType<typeof write>>) => JSON.stringify(r.content);

beforeAll(async () => {
  redis = await startRedis();
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-fleet-')));
  ws = join(root, 'ws');
  for (const d of ['a', 'b', 'shared', 'outage', 'after']) mkdirSync(join(ws, d), { recursive: true });
  desk = redisDesk({ url: redis.url, name: 'answering-script' });
  await desk.ready();
  desk.events$.subscribe((e) => {
    if (e.type !== 'raised') return;
    const answer = answerFor(e.item);
    if (!answer) return;
    void desk.respond(e.item.id, { ...answer, by: 'script' }).then(
      (won) => {
        if (!won) return;
        if (answered.has(e.item.id)) respondedTwice += 1;
        answered.set(e.item.id, { approved: answer.approved, path: e.item.items[0]?.realPath ?? '' });
      },
      () => {},
    );
  });
  await Promise.all([startGateway('gw-a'), startGateway('gw-b')]);
}, 60_000);

afterAll(async () => {
  await Promise.all(gateways.map((g) => g.client.close().catch(() => {})));
  await desk?.close();
  await redis?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('two gateway processes, one Redis, one answering script', () => {
  it('200 concurrent prompt-tier calls from both: every call gets exactly its answer, none twice, none lost', async () => {
    const [a, b] = gateways;
    const calls = Array.from({ length: 200 }, (_, i) => {
      const g = i % 2 === 0 ? a! : b!;
      const path = join(ws, g.name === 'gw-a' ? 'a' : 'b', `f-${i}.txt`);
      return write(g.client, path).then((result) => ({ i, path, result }));
    });
    const results = await Promise.all(calls);
    expect(results).toHaveLength(200);
    for (const { i, result } of results) {
      if (i % 2 === 0) {
        expect(result.isError, `call ${i}: ${text(result)}`).not.toBe(true);
        expect(text(result)).toMatch(/Successfully wrote/);
      } else {
        expect(result.isError, `call ${i}`).toBe(true);
        expect(text(result)).toMatch(/approval denied|PROMPT_DENIED|denied/i);
      }
    }
    // One question per call, each answered once by the script.
    const bulk = [...answered.values()].filter((v) => /\/[ab]\/f-\d+\.txt$/.test(v.path));
    expect(bulk).toHaveLength(200);
    expect(new Set(bulk.map((v) => v.path)).size).toBe(200);
    expect(respondedTwice).toBe(0);
    expect(desk.pending()).toEqual([]);
  }, 60_000);

  it('a session grant made through one process is seen by the other, without a question', async () => {
    const [a, b] = gateways;
    const before = answered.size;
    const first = await write(a!.client, join(ws, 'shared', 'one.txt'));
    expect(first.isError).not.toBe(true);
    expect(answered.size).toBe(before + 1);
    const second = await write(b!.client, join(ws, 'shared', 'two.txt'));
    expect(second.isError, text(second)).not.toBe(true);
    expect(answered.size).toBe(before + 1);
  }, 30_000);

  it('Redis killed mid-run: waiting calls deny by their deadline, nothing is allowed; restarted: new calls work', async () => {
    const [a, b] = gateways;
    const waiting = [a!, b!, a!, b!].map((g, i) => write(g.client, join(ws, 'outage', `o-${i}.txt`)));
    const end = Date.now() + 5_000;
    while (desk.pending().length < 2 && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    expect(desk.pending().length).toBe(2);
    await redis.kill();
    const killedAt = Date.now();
    const outcomes = await Promise.all(waiting);
    for (const r of outcomes) {
      expect(r.isError, text(r)).toBe(true);
      expect(text(r)).toMatch(/Redis|PROMPT_TIMEOUT|timed out/);
    }
    // By the deadline (plus the turns of the second call in each session), never by waiting for Redis.
    expect(Date.now() - killedAt).toBeLessThan(TIMEOUT_MS * 3);

    await redis.restart();
    // The desk and both gateways reconnect by themselves.
    for (const [i, g] of [a!, b!].entries()) {
      let ok = false;
      const until = Date.now() + 10_000;
      while (!ok && Date.now() < until) {
        const r = await write(g.client, join(ws, 'after', `f-${i * 2}.txt`));
        ok = r.isError !== true;
        if (!ok) await new Promise((res) => setTimeout(res, 200));
      }
      expect(ok, `${g.name} after the restart: ${g.stderr.join('').slice(-2000)}`).toBe(true);
    }
  }, 60_000);
});
