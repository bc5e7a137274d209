import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { RotatedCompressor } from '../src/compressRotated.js';
import { tempDir } from './helpers.js';

// issue 14: every rotation queued every plain rotated file again (and stat'ed all `keep` names): with a large
// `keep` the gzip backlog grew with each rotation.
describe('rotation compression is bounded', () => {
  it('scheduling 40 times over 60 plain files queues each file once, and all end up compressed', async () => {
    const dir = tempDir();
    const file = join(dir, 'violations.log');
    for (let i = 1; i <= 60; i++) writeFileSync(`${file}.${i}`, `record ${i}\n`.repeat(200));
    const errors: unknown[] = [];
    const compressor = new RotatedCompressor(file, (e) => errors.push(e));
    let most = 0;
    for (let k = 0; k < 40; k++) {
      compressor.schedule();
      most = Math.max(most, compressor.backlog);
    }
    expect(most).toBeLessThanOrEqual(60);
    while (compressor.busy) await new Promise((r) => setTimeout(r, 5));
    expect(errors).toEqual([]);
    const names = readdirSync(dir).sort();
    expect(names.filter((n) => /\.\d+$/.test(n))).toEqual([]);
    expect(names.filter((n) => n.endsWith('.gz'))).toHaveLength(60);
    expect(names.filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(gunzipSync(readFileSync(`${file}.17.gz`)).toString()).toBe('record 17\n'.repeat(200));
  });
});
