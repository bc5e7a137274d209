import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { readDeadLetters, sampleEvent, webhooks } from '../src/index.js';
import { context, createGuard, tempDir, workspacePolicy } from './helpers/guard.js';
import { freePort, startReceiver } from './helpers/receiver.js';

const FAST = { baseDelayMs: 20, maxDelayMs: 100, timeoutMs: 500, maxAttempts: 1000, maxRetryAfterMs: 1_000 };
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function deliveryIds(received: { headers: Record<string, unknown> }[]): string[] {
  return received.map((r) => String(r.headers['x-toolgate-delivery']));
}

describe('durable outbox', () => {
  it('receiver down for the whole first run: a restarted sender delivers every event, in order, none lost', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/hook`;
    const first = webhooks({ targets: [{ url }], outboxDir: tmp.dir, retry: FAST, env: {} });
    const guard = createGuard({ plugins: [workspacePolicy(), first] });
    const ctx = context(tmp.dir);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++)
      ids.push((await guard.check({ tool: 'file_write', args: { path: `/etc/f${i}` } }, ctx)).id);
    // Let it fail a few times against the closed port.
    await new Promise((r) => setTimeout(r, 150));
    expect(first.stats().delivered).toBe(0);
    expect(first.stats().retried).toBeGreaterThan(0);
    expect(await first.flush(50)).toBe(false);
    await first.close();

    const receiver = await startReceiver(port);
    cleanups.push(() => receiver.close());
    const second = webhooks({ targets: [{ url }], outboxDir: tmp.dir, retry: FAST, env: {} });
    cleanups.push(() => second.close());
    expect(await second.flush(5_000)).toBe(true);
    const got = receiver.received.map((r) => JSON.parse(r.body).decisionId);
    expect(got).toEqual(ids);
    expect(new Set(deliveryIds(receiver.received)).size).toBe(20);
    expect(readFileSync(second.outboxFile, 'utf8')).toBe('');
    expect(await readDeadLetters(second.deadLetterFile)).toEqual([]);
  });

  it('a sender killed with SIGKILL (real child process) loses nothing it had persisted', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/hook`;
    const script = fileURLToPath(new URL('./helpers/crashChild.ts', import.meta.url));
    const child = spawn(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', script, tmp.dir, url, '25'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`child not ready: ${stderr}`)), 15_000);
      child.stdout.on('data', (d: Buffer) => {
        if (d.toString().includes('ready')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => reject(new Error(`child exited ${code}: ${stderr}`)));
    });
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;

    // The dead process's outbox file is adopted; what it queued is delivered now.
    const receiver = await startReceiver(port);
    cleanups.push(() => receiver.close());
    const restarted = webhooks({ targets: [{ url }], outboxDir: tmp.dir, retry: FAST, env: {} });
    cleanups.push(() => restarted.close());
    expect(await restarted.flush(5_000)).toBe(true);
    const paths = receiver.received.map((r) => JSON.parse(r.body).path);
    expect(paths).toEqual(Array.from({ length: 25 }, (_, i) => `/etc/crash-${i}`));
    expect(new Set(deliveryIds(receiver.received)).size).toBe(25);
  });

  it('200 of 200 violations arrive across a SIGKILL of the host in the middle of delivering them (issue 14)', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    // The receiver takes 40 deliveries, then stops answering: the host is killed with requests in flight,
    // some delivered, some not, some being retried.
    const receiver = await startReceiver(0, [
      ...Array.from({ length: 40 }, () => ({ status: 200 })),
      ...Array.from({ length: 1000 }, () => 'hang' as const),
    ]);
    cleanups.push(() => receiver.close());
    const script = fileURLToPath(new URL('./helpers/crashChild.ts', import.meta.url));
    const child = spawn(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', script, tmp.dir, receiver.url, '200'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`child not ready: ${stderr}`)), 20_000);
      child.stdout.on('data', (d: Buffer) => {
        if (d.toString().includes('ready')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => reject(new Error(`child exited ${code}: ${stderr}`)));
    });
    await receiver.waitFor(41);
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    const firstRun = receiver.received.length;
    expect(firstRun).toBeGreaterThanOrEqual(41);
    expect(firstRun).toBeLessThan(200);

    receiver.replies.length = 0; // answering again
    const restarted = webhooks({
      targets: [{ url: receiver.url }],
      outboxDir: tmp.dir,
      retry: FAST,
      env: {},
    });
    cleanups.push(() => restarted.close());
    expect(await restarted.flush(15_000)).toBe(true);
    const delivered = new Set(
      receiver.received
        .filter((_r, i) => i < 40 || i >= firstRun)
        .map((r) => (JSON.parse(r.body) as { path: string }).path),
    );
    expect(delivered.size).toBe(200);
    expect(await readDeadLetters(restarted.deadLetterFile)).toEqual([]);
  }, 40_000);

  it('at-least-once: an event whose delivery was cut by close() is sent again with the same delivery id', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const receiver = await startReceiver(0, ['hang']);
    cleanups.push(() => receiver.close());
    const first = webhooks({
      targets: [{ url: receiver.url }],
      outboxDir: tmp.dir,
      retry: { ...FAST, timeoutMs: 5_000 },
      env: {},
    });
    first.notify(sampleEvent());
    await receiver.waitFor(1);
    await first.close();
    const second = webhooks({ targets: [{ url: receiver.url }], outboxDir: tmp.dir, retry: FAST, env: {} });
    cleanups.push(() => second.close());
    expect(await second.flush(5_000)).toBe(true);
    expect(receiver.received).toHaveLength(2);
    const [a, b] = deliveryIds(receiver.received);
    expect(a).toBe(b);
  });

  it('two live senders share one directory without contention; a later start adopts what a closed one left', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const down = `http://127.0.0.1:${await freePort()}/x`;
    const a = webhooks({ targets: [{ url: receiver.url }], outboxDir: tmp.dir, retry: FAST, env: {} });
    const b = webhooks({ targets: [{ url: down }], outboxDir: tmp.dir, retry: FAST, env: {} });
    cleanups.push(() => a.close());
    expect(a.outboxFile).not.toBe(b.outboxFile);
    a.notify({ ...sampleEvent(), path: '/etc/a' });
    b.notify({ ...sampleEvent(), path: '/etc/b' });
    expect(await a.flush(5_000)).toBe(true);
    expect(receiver.received.map((r) => JSON.parse(r.body).path)).toEqual(['/etc/a']);
    await b.close();
    // b's undelivered event is waiting in b's file; a new sender for that target adopts and delivers it.
    const up = await startReceiver(Number(new URL(down).port));
    cleanups.push(() => up.close());
    const c = webhooks({ targets: [{ url: down }], outboxDir: tmp.dir, retry: FAST, env: {} });
    cleanups.push(() => c.close());
    expect(await c.flush(5_000)).toBe(true);
    expect(up.received.map((r) => JSON.parse(r.body).path)).toEqual(['/etc/b']);
    expect(existsSync(b.outboxFile)).toBe(false);
  });

  it('a cleanly drained sender leaves no outbox file behind', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const plugin = webhooks({ targets: [{ url: receiver.url }], outboxDir: tmp.dir, retry: FAST, env: {} });
    plugin.notify(sampleEvent());
    expect(await plugin.flush(5_000)).toBe(true);
    await plugin.close();
    expect(readdirSync(tmp.dir).filter((f) => f.startsWith('outbox'))).toEqual([]);
  });

  it('a plugin with no targets touches no disk at all', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const dir = join(tmp.dir, 'never-created');
    const plugin = webhooks({ outboxDir: dir, env: {} });
    expect(plugin.notify(sampleEvent())).toBe(0);
    expect(await plugin.flush(100)).toBe(true);
    await plugin.close();
    expect(existsSync(dir)).toBe(false);
  });

  it('is bounded: past maxPending, events go to the dead-letter file and are counted', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const port = await freePort();
    const plugin = webhooks({
      targets: [{ url: `http://127.0.0.1:${port}/x` }],
      outboxDir: tmp.dir,
      maxPending: 3,
      retry: FAST,
      env: {},
    });
    const dead: unknown[] = [];
    plugin.events.on('webhooks:dead-letter', (e) => dead.push(e));
    for (let i = 0; i < 5; i++) plugin.notify({ ...sampleEvent(), path: `/etc/${i}` });
    expect(plugin.stats()).toMatchObject({ enqueued: 5, overflowed: 2, pending: 3 });
    await plugin.close();
    const letters = await readDeadLetters(plugin.deadLetterFile);
    expect(letters.map((l) => [l.reason, l.event.path])).toEqual([
      ['outbox-full', '/etc/3'],
      ['outbox-full', '/etc/4'],
    ]);
    expect(dead).toHaveLength(2);
    expect(readFileSync(plugin.outboxFile, 'utf8').trim().split('\n')).toHaveLength(3);
  });

  it('rotates the dead-letter file at maxDeadLetterBytes (one previous generation kept)', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const receiver = await startReceiver(
      0,
      Array.from({ length: 20 }, () => ({ status: 410 })),
    );
    cleanups.push(() => receiver.close());
    const plugin = webhooks({
      targets: [{ url: receiver.url }],
      outboxDir: tmp.dir,
      maxDeadLetterBytes: 2_000,
      retry: FAST,
      env: {},
    });
    cleanups.push(() => plugin.close());
    for (let i = 0; i < 20; i++) plugin.notify(sampleEvent());
    expect(await plugin.flush(5_000)).toBe(true);
    const current = readFileSync(plugin.deadLetterFile, 'utf8');
    const previous = readFileSync(`${plugin.deadLetterFile}.1`, 'utf8');
    expect(Buffer.byteLength(current)).toBeLessThanOrEqual(2_000);
    expect(Buffer.byteLength(previous)).toBeLessThanOrEqual(2_000);
    expect(plugin.stats().deadLettered).toBe(20);
  });

  it('skips a torn last line (crash mid-write), reports it, and delivers the intact entries', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/hook`;
    const first = webhooks({ targets: [{ url }], outboxDir: tmp.dir, retry: FAST, env: {} });
    first.notify({ ...sampleEvent(), path: '/etc/intact' });
    await first.close();
    appendFileSync(first.outboxFile, '{"k":"put","id":"torn","t":"js');
    const receiver = await startReceiver(port);
    cleanups.push(() => receiver.close());
    const second = webhooks({ targets: [{ url }], outboxDir: tmp.dir, retry: FAST, env: {} });
    cleanups.push(() => second.close());
    const errors: Array<{ error: Error }> = [];
    second.events.on('webhooks:error', (e) => errors.push(e));
    expect(await second.flush(5_000)).toBe(true);
    expect(receiver.received.map((r) => JSON.parse(r.body).path)).toEqual(['/etc/intact']);
    expect(errors.map((e) => e.error.message)).toEqual([
      expect.stringContaining('skipped 1 unreadable line'),
    ]);
  });

  it('dead-letters entries left for a target that is no longer configured', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    writeFileSync(
      join(tmp.dir, 'outbox.jsonl'),
      `${JSON.stringify({ k: 'put', id: 'old-1', t: 'json:gone', a: 2, at: 1, e: sampleEvent() })}\n`,
    );
    const plugin = webhooks({ targets: [{ url: 'http://127.0.0.1:9/x' }], outboxDir: tmp.dir, env: {} });
    await plugin.close();
    const letters = await readDeadLetters(plugin.deadLetterFile);
    expect(letters).toEqual([
      expect.objectContaining({ id: 'old-1', reason: 'unknown-target', attempts: 2 }),
    ]);
    expect(existsSync(plugin.outboxFile)).toBe(false);
  });
});
