import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DeskEvent } from '@toolgate/approvals';
import { redisDesk } from '@toolgate/store-redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../../store-redis/test/helpers/redisServer.js';
import { ScriptedClient } from '../src/demo/scriptedClient.js';
import { childTransport } from './support/childTransport.js';
import { exited, FILESYSTEM_SERVER, spawnCli } from './support/cli.js';

let root: string;
let ws: string;
beforeAll(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-mcp-fleet-')));
  ws = join(root, 'ws');
  mkdirSync(join(ws, 'docs'), { recursive: true });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const WRITABLE = 'default: deny\nrules:\n  - { pattern: "<workspace>/**", access: write }\n';
const READ_ONLY = 'default: deny\nrules:\n  - { pattern: "<workspace>/**", access: read }\n';
const PROMPT = 'default: deny\nrules:\n  - { pattern: "<workspace>/**", access: prompt }\n';
const BROKEN = 'default: deny\nrules:\n  - { pattern: "<workspace>/**", access: sometimes }\n';

async function gateway(policy: string, extra: string[]) {
  const child = spawnCli(
    [
      'mcp',
      '--dialect',
      'toolgate',
      '--policy',
      policy,
      '--cwd',
      ws,
      ...extra,
      '--',
      process.execPath,
      FILESYSTEM_SERVER,
      root,
    ],
    { ...process.env, HOME: root },
  );
  const stderr: string[] = [];
  child.stderr.on('data', (d: Buffer) => stderr.push(d.toString()));
  const client = new ScriptedClient(childTransport(child));
  await client.start();
  await client.initialize({});
  const write = async (path: string) => {
    const r = (await client.request('tools/call', { name: 'write_file', arguments: { path, content: 'x' } }))
      .result as { isError?: boolean; content: Array<{ text: string }> };
    return { denied: r.isError === true, text: r.content.map((c) => c.text).join('') };
  };
  return { child, write, stderr };
}
const until = async (cond: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
  return cond();
};

describe('toolgate mcp --watch-policy (the built CLI)', () => {
  it('a changed policy judges the next call; a broken one keeps the last good, loudly; the trail names each version', async () => {
    const policy = join(root, 'watched.yaml');
    const trail = join(root, 'trail.jsonl');
    writeFileSync(policy, WRITABLE);
    const g = await gateway(policy, ['--watch-policy', '--audit', trail]);
    expect((await g.write(join(ws, 'one.txt'))).denied).toBe(false);
    writeFileSync(policy, READ_ONLY);
    expect(await until(() => g.stderr.join('').includes('reloaded: now enforcing'))).toBe(true);
    const second = await g.write(join(ws, 'two.txt'));
    expect(second.denied).toBe(true);
    expect(second.text).toContain('PATH_DENIED');
    writeFileSync(policy, BROKEN);
    expect(
      await until(() => g.stderr.join('').includes('failed to load; still enforcing the last good version')),
    ).toBe(true);
    // Still the read-only version: the broken file opened nothing up.
    expect((await g.write(join(ws, 'three.txt'))).denied).toBe(true);
    g.child.stdin.end();
    expect(await exited(g.child)).toBe(0);
    const records = readFileSync(trail, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { attemptedPath: string; policyHash?: string; decision: string });
    const one = records.find((r) => r.attemptedPath.endsWith('one.txt'));
    const two = records.find((r) => r.attemptedPath.endsWith('two.txt'));
    const three = records.find((r) => r.attemptedPath.endsWith('three.txt'));
    expect(one?.policyHash).toMatch(/\S/);
    expect(two?.policyHash).toMatch(/\S/);
    expect(two?.policyHash).not.toBe(one?.policyHash);
    expect(three?.policyHash).toBe(two?.policyHash);
  }, 60_000);

  it('twin: without --watch-policy the file is read once (a change does nothing until restart); records carry the hash', async () => {
    const policy = join(root, 'fixed.yaml');
    const trail = join(root, 'fixed.jsonl');
    writeFileSync(policy, WRITABLE);
    const g = await gateway(policy, ['--audit', trail]);
    writeFileSync(policy, READ_ONLY);
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await g.write(join(ws, 'four.txt'))).denied).toBe(false);
    g.child.stdin.end();
    expect(await exited(g.child)).toBe(0);
    const [record] = readFileSync(trail, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { policyHash?: string });
    expect(record?.policyHash).toMatch(/\S/);
  }, 60_000);
});

describe('toolgate mcp --redis (two built gateways, one desk)', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });

  it('a prompt is answered at the fleet desk; the session grant made through one gateway answers the other', async () => {
    const policy = join(root, 'prompt.yaml');
    writeFileSync(policy, PROMPT);
    const desk = redisDesk({ url: redis.url });
    await desk.ready();
    const raised: DeskEvent[] = [];
    desk.events$.subscribe((e) => {
      if (e.type !== 'raised') return;
      raised.push(e);
      const path = e.item.items[0]?.realPath ?? '';
      void desk.respond(
        e.item.id,
        path.includes('/docs/')
          ? { approved: true, by: 'alice', grant: 'directory' }
          : { approved: false, by: 'alice', reason: 'not there' },
      );
    });
    const flags = ['--redis', redis.url, '-r', 'fleet-session'];
    const [a, b] = await Promise.all([gateway(policy, flags), gateway(policy, flags)]);
    try {
      expect((await a.write(join(ws, 'docs', 'a.md'))).denied).toBe(false);
      expect(raised).toHaveLength(1);
      expect((await b.write(join(ws, 'docs', 'b.md'))).denied).toBe(false);
      expect(raised).toHaveLength(1);
      const elsewhere = await b.write(join(ws, 'c.md'));
      expect(elsewhere.denied).toBe(true);
      expect(elsewhere.text).toContain('not there');
      expect(raised).toHaveLength(2);
    } finally {
      a.child.stdin.end();
      b.child.stdin.end();
      await Promise.all([exited(a.child), exited(b.child)]);
      await desk.close();
    }
  }, 60_000);

  it('a bad --redis URL is a usage error (exit 2) naming the flag', async () => {
    const child = spawnCli(
      [
        'mcp',
        '--dialect',
        'toolgate',
        '--policy',
        join(root, 'prompt.yaml'),
        '--redis',
        'localhost:6379',
        '--',
        'true',
      ],
      { ...process.env, HOME: root },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    expect(await exited(child)).toBe(2);
    expect(stderr).toMatch(/--redis must be a redis:\/\/ or rediss:\/\/ URL, got "localhost:6379"/);
  });
});
