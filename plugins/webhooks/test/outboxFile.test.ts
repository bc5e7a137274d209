import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sampleEvent } from '../src/index.js';
import { type OutboxEntry, openOutbox } from '../src/outbox.js';
import { tempDir } from './helpers/guard.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const entry = (i: number): OutboxEntry => ({
  id: `e${i}`,
  target: 't',
  event: { ...sampleEvent(), path: `/etc/${i}` },
  attempts: 0,
  at: i,
});
const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { k: string; id: string });

describe('outbox file', () => {
  it('is append-only while running, compacts after compactAfter acknowledgements, and replays in order', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const errors: unknown[] = [];
    const box = openOutbox(tmp.dir, {
      maxPending: 100,
      maxDeadLetterBytes: 1e6,
      compactAfter: 4,
      onError: (e) => errors.push(e),
    });
    for (let i = 0; i < 10; i++) box.put(entry(i));
    await box.settle();
    expect(lines(box.file).map((l) => l.k)).toEqual(Array(10).fill('put'));
    box.ack('e0');
    box.ack('e1');
    box.attempted({ ...entry(2), attempts: 1 });
    await box.settle();
    // Two acks: below compactAfter, so they are appended.
    expect(
      lines(box.file)
        .slice(10)
        .map((l) => `${l.k}:${l.id}`),
    ).toEqual(['ack:e0', 'ack:e1', 'try:e2']);
    box.ack('e2');
    box.ack('e3');
    await box.settle();
    // The fourth ack compacts: only the six pending entries are left.
    expect(lines(box.file).map((l) => l.id)).toEqual(['e4', 'e5', 'e6', 'e7', 'e8', 'e9']);
    box.ack('e5');
    await box.close();
    const again = openOutbox(tmp.dir, {
      maxPending: 100,
      maxDeadLetterBytes: 1e6,
      onError: (e) => errors.push(e),
    });
    cleanups.push(() => again.close());
    expect(again.recovered.map((e) => e.id)).toEqual(['e4', 'e6', 'e7', 'e8', 'e9']);
    expect(errors).toEqual([]);
  });

  it('counts attempts across restarts, so maxAttempts is not reset by a crash loop', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const box = openOutbox(tmp.dir, { maxPending: 10, maxDeadLetterBytes: 1e6, onError: () => undefined });
    const e = entry(1);
    box.put(e);
    e.attempts = 3;
    box.attempted(e);
    await box.settle();
    // As after a crash: the log (not a snapshot) of an owner that is gone is what the next start reads.
    copyFileSync(box.file, join(tmp.dir, 'outbox-999999999-0.jsonl'));
    const again = openOutbox(tmp.dir, { maxPending: 10, maxDeadLetterBytes: 1e6, onError: () => undefined });
    cleanups.push(
      () => again.close(),
      () => box.close(),
    );
    expect(again.recovered).toEqual([expect.objectContaining({ id: 'e1', attempts: 3 })]);
  });

  it('stays bounded during a long outage: retry records trigger compaction too', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const box = openOutbox(tmp.dir, {
      maxPending: 10,
      maxDeadLetterBytes: 1e6,
      compactAfter: 3,
      onError: () => undefined,
    });
    cleanups.push(() => box.close());
    const e = entry(1);
    box.put(e);
    for (let n = 1; n <= 50; n++) {
      e.attempts = n;
      box.attempted(e);
      await box.settle();
    }
    const log = lines(box.file);
    expect(log.length).toBeLessThanOrEqual(4);
    expect(log[0]).toMatchObject({ k: 'put', id: 'e1' });
  });
});
