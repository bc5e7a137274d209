import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractAccesses } from '../src/index.js';
import { FIXTURE_ENV, fakeContext, formatAll } from './helpers.js';

interface Fixture {
  cmd: string;
  /** Sorted accesses as `formatAccess` writes them; `?` marks an uncertain access. */
  expect: string[];
}

const dir = join(import.meta.dirname, 'fixtures');
export const corpus: { file: string; line: number; fixture: Fixture }[] = [];
for (const file of readdirSync(dir)
  .filter((f) => f.endsWith('.jsonl'))
  .sort()) {
  readFileSync(join(dir, file), 'utf8')
    .split('\n')
    .forEach((text, k) => {
      if (text.trim() !== '') corpus.push({ file, line: k + 1, fixture: JSON.parse(text) as Fixture });
    });
}

const ctx = fakeContext(FIXTURE_ENV);

describe('fixture corpus (command → accesses, `?` = uncertain)', () => {
  it('has at least 400 cases', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(400);
  });

  for (const { file, line, fixture } of corpus) {
    it(`${file}:${line} ${JSON.stringify(fixture.cmd)}`, () => {
      const r = extractAccesses(fixture.cmd, ctx);
      expect(formatAll(r.accesses)).toEqual([...fixture.expect].sort());
      expect(r.uncertain).toBe(fixture.expect.some((e) => e.endsWith(' ?')));
    });
  }
});
