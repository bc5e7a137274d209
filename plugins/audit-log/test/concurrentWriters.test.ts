import { spawn } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readRecords, verifyChain } from '../src/index.js';
import { tempDir } from './helpers.js';

const fixture = fileURLToPath(new URL('./fixtures/writerChild.ts', import.meta.url));

interface Run {
  ids: string[];
  code: number | null;
  stderr: string;
}

/** Eight processes append 500 records each to one trail at once, rotating every few KiB (issue 14). */
async function eightWriters(file: string, compress: boolean): Promise<Run[]> {
  const go = `${file}.go`;
  const children = Array.from({ length: 8 }, () =>
    spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--conditions=source',
        fixture,
        file,
        '500',
        '16384',
        '10000',
        compress ? '1' : '0',
        go,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    ),
  );
  let ready = 0;
  const runs = children.map(
    (child) =>
      new Promise<Run>((resolve, reject) => {
        const run: Run = { ids: [], code: null, stderr: '' };
        let buffered = '';
        child.stdout.on('data', (d: Buffer) => {
          buffered += d.toString();
          const parts = buffered.split('\n');
          buffered = parts.pop() ?? '';
          for (const p of parts) {
            if (p === 'ready') {
              if (++ready === 8) writeFileSync(go, '');
            } else run.ids.push(p);
          }
        });
        child.stderr.on('data', (d: Buffer) => {
          run.stderr += d.toString();
        });
        child.on('error', reject);
        child.on('exit', (code) => {
          run.code = code;
          resolve(run);
        });
      }),
  );
  return Promise.all(runs);
}

async function check(file: string, runs: Run[]): Promise<void> {
  for (const r of runs) {
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.ids).toHaveLength(500);
  }
  const report = await verifyChain(file);
  expect(report.broken).toBeUndefined();
  expect(report.ok).toBe(true);
  expect(report.fromGenesis).toBe(true);
  expect(report.records).toBe(4_000);
  expect(report.files.length).toBeGreaterThan(20); // rotation really happened, many times
  const written = new Set<string>();
  for await (const r of readRecords(file)) written.add(r.decisionId as string);
  expect(written.size).toBe(4_000);
  for (const r of runs) for (const id of r.ids) expect(written.has(id)).toBe(true);
  // No lock file is left behind once every writer has exited.
  expect(readdirSync(join(file, '..')).filter((n) => n.endsWith('.lock'))).toEqual([]);
}

describe('issue 14: concurrent writers on one trail', () => {
  it('8 processes x 500 records with rotation: the chain is unbroken and all 4,000 records are there', async () => {
    const file = join(tempDir(), 'violations.log');
    await check(file, await eightWriters(file, false));
  }, 60_000);

  it('the same with rotated files gzipped in the background by every writer', async () => {
    const file = join(tempDir(), 'violations.log');
    await check(file, await eightWriters(file, true));
  }, 60_000);
});
