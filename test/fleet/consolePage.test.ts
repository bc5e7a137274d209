import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { DeskEvent } from '@toolgate/approvals';
import { startConsole, type WebConsole } from '@toolgate/console';
import { type RedisDesk, redisDesk } from '@toolgate/store-redis';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../../packages/store-redis/test/helpers/redisServer.js';

// Issue 27, done when: "two processes + Redis: 200 concurrent prompt-tier calls from both, answered from the
// console by a script driving the page". Two real gateway processes (the fleet test's child: approvals over
// redisApprovalBus), one console on redisDesk, and Debian's Chromium: a script in the page reads each question
// and presses Allow or Deny in it — the page's own forms and script carry every answer.
const CHILD = fileURLToPath(new URL('./fixtures/gatewayChild.ts', import.meta.url));
const CHROMIUM = '/usr/bin/chromium';
const CALLS = 200;

let redis: TestRedis;
let root: string;
let ws: string;
let desk: RedisDesk;
let web: WebConsole;
let context: BrowserContext;
let profile: string;
let page: Page;
const gateways: Client[] = [];

async function startGateway(name: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', '--conditions=source', CHILD, redis.url, ws, name, '60000', `session-${name}`],
    stderr: 'pipe',
  });
  const client = new Client({ name: `agent-${name}`, version: '1.0.0' });
  await client.connect(transport);
  gateways.push(client);
  return client;
}

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `${CHROMIUM} is installed (scripts/ensure-test-tools.sh)`).toBe(true);
  redis = await startRedis();
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-fleet-page-')));
  ws = join(root, 'ws');
  for (const d of ['a', 'b']) mkdirSync(join(ws, d), { recursive: true });
  desk = redisDesk({ url: redis.url, name: 'console' });
  await desk.ready();
  web = await startConsole({ desk, operator: 'page-script' });
  profile = mkdtempSync(join(tmpdir(), 'toolgate-fleet-profile-'));
  const [browser] = await Promise.all([
    chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport: { width: 1280, height: 800 },
    }),
    startGateway('gw-a'),
    startGateway('gw-b'),
  ]);
  context = browser;
  page = await context.newPage();
  await page.goto(web.loginUrl());
  await page.waitForURL(`${web.url}/`);
  await page.waitForFunction(() => document.querySelector('[data-live]')?.textContent === 'connected');
}, 90_000);

afterAll(async () => {
  await Promise.all(gateways.map((c) => c.close().catch(() => {})));
  await context?.close();
  await web?.close();
  await desk?.close();
  await redis?.stop();
  rmSync(root, { recursive: true, force: true });
  rmSync(profile, { recursive: true, force: true });
});

describe('two gateway processes, one Redis, one console page', () => {
  it(`${CALLS} concurrent prompt-tier calls from both, answered by a script driving the page: every call gets exactly its answer, none twice, none lost`, async () => {
    const settled: Array<Extract<DeskEvent, { type: 'settled' }>> = [];
    const sub = desk.events$.subscribe((e) => {
      if (e.type === 'settled') settled.push(e);
    });
    const [a, b] = gateways;
    const calls = Array.from({ length: CALLS }, (_, i) => {
      const client = i % 2 === 0 ? a! : b!;
      const path = join(ws, i % 2 === 0 ? 'a' : 'b', `f-${i}.txt`);
      return client
        .callTool({ name: 'write_file', arguments: { path, content: 'x' } }, undefined, { timeout: 90_000 })
        .then((result) => ({ i, result }));
    });
    // The script in the page: for each question shown, even-numbered files are allowed, odd ones denied,
    // by pressing the question's own button (the page's form handler sends the answer).
    const pressed = await page.evaluate(
      (total) =>
        new Promise<number>((resolve, reject) => {
          const seen = new Set<string>();
          const started = Date.now();
          const timer = setInterval(() => {
            for (const article of document.querySelectorAll<HTMLElement>('article.item')) {
              const id = article.dataset.id!;
              if (seen.has(id)) continue;
              const n = Number(/f-(\d+)\.txt/.exec(article.querySelector('table')?.textContent ?? '')?.[1]);
              if (!Number.isInteger(n)) continue;
              seen.add(id);
              const label = n % 2 === 0 ? 'Allow' : 'Deny';
              const button = [...article.querySelectorAll('button')].find((x) => x.textContent === label);
              button?.click();
            }
            if (seen.size >= total) {
              clearInterval(timer);
              resolve(seen.size);
            } else if (Date.now() - started > 80_000) {
              clearInterval(timer);
              reject(new Error(`only ${seen.size} questions reached the page`));
            }
          }, 20);
        }),
      CALLS,
    );
    expect(pressed).toBe(CALLS);
    const results = await Promise.all(calls);
    sub.unsubscribe();
    for (const { i, result } of results) {
      const text = JSON.stringify(result.content);
      if (i % 2 === 0) expect(result.isError, `call ${i}: ${text}`).not.toBe(true);
      else {
        expect(result.isError, `call ${i}`).toBe(true);
        expect(text).toMatch(/denied/i);
      }
    }
    const answered = settled.filter((s) => s.cause === 'answered');
    expect(answered).toHaveLength(CALLS);
    expect(new Set(answered.map((s) => s.id)).size).toBe(CALLS);
    expect(answered.every((s) => s.by === 'page-script')).toBe(true);
    expect(answered.filter((s) => s.approved)).toHaveLength(CALLS / 2);
    expect(desk.pending()).toEqual([]);
    // The page is empty again.
    await page.waitForFunction(() => document.querySelectorAll('article.item').length === 0);
  }, 120_000);
});
