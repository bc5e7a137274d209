import { existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { RotatedCompressor } from '../src/compressRotated.js';
import { tempDir } from './helpers.js';

const idle = async (...cs: RotatedCompressor[]) => {
  while (cs.some((c) => c.busy)) await new Promise((r) => setTimeout(r, 5));
};

// The concurrent-writers test's long tail (writers alive for seconds after their last record, a lock wait
// running out under load): every writer of a trail gzipped every rotated file, each rename under the lock.
describe('one writer compresses each rotated file', () => {
  it('two writers of one trail compress 30 rotated files 30 times, not 60, and all end up compressed', async () => {
    const dir = tempDir();
    const file = join(dir, 'violations.log');
    for (let i = 1; i <= 30; i++) writeFileSync(`${file}.${i}`, `record ${i}\n`.repeat(300));
    const errors: unknown[] = [];
    const a = new RotatedCompressor(file, (e) => errors.push(e));
    const b = new RotatedCompressor(file, (e) => errors.push(e));
    a.schedule();
    b.schedule();
    await idle(a, b);
    expect(errors).toEqual([]);
    expect(a.compressed + b.compressed).toBe(30);
    const names = readdirSync(dir);
    expect(names.filter((n) => n.endsWith('.gz'))).toHaveLength(30);
    expect(names.filter((n) => /\.\d+$/.test(n) || n.endsWith('.tmp'))).toEqual([]);
    for (const i of [1, 17, 30])
      expect(gunzipSync(readFileSync(`${file}.${i}.gz`)).toString()).toBe(`record ${i}\n`.repeat(300));
  });

  it('leaves a file another writer is compressing to it, and takes over a claim its writer left behind', async () => {
    const dir = tempDir();
    const file = join(dir, 'violations.log');
    writeFileSync(`${file}.1`, 'record 1\n'.repeat(100));
    const claim = `${file}.gz-${statSync(`${file}.1`).ino}.tmp`;
    writeFileSync(claim, '');
    const errors: unknown[] = [];
    const c = new RotatedCompressor(file, (e) => errors.push(e));
    c.schedule();
    await idle(c);
    expect(c.compressed).toBe(0);
    expect(existsSync(`${file}.1`)).toBe(true);
    expect(existsSync(claim)).toBe(true);
    // The writer that claimed it died two minutes ago: the claim is stale.
    const old = new Date(Date.now() - 120_000);
    utimesSync(claim, old, old);
    c.schedule();
    await idle(c);
    expect(errors).toEqual([]);
    expect(c.compressed).toBe(1);
    expect(readdirSync(dir).sort()).toEqual(['violations.log.1.gz']);
    expect(gunzipSync(readFileSync(`${file}.1.gz`)).toString()).toBe('record 1\n'.repeat(100));
  });
});
