import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { trailFiles } from '../src/index.js';
import { tempDir } from './helpers.js';

const fixture = fileURLToPath(new URL('./fixtures/denyLoop.ts', import.meta.url));

function runChild(file: string, mode: string, count: number, maxSize: number): ChildProcess {
  return spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=source', fixture, file, mode, String(count), String(maxSize)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
}

function trailLines(file: string): string[] {
  const out: string[] = [];
  for (const f of trailFiles(file)) {
    const text = readFileSync(f, 'utf8');
    // A torn line would be a last line without its newline, or a line that is not whole JSON.
    expect(text.endsWith('\n')).toBe(true);
    out.push(...text.split('\n').slice(0, -1));
  }
  return out;
}

function idsOf(lines: string[]): Set<string> {
  return new Set(lines.map((l) => (JSON.parse(l) as { decisionId: string }).decisionId));
}

describe('durability: a deny check() returned is on disk, whatever happens to the process next', () => {
  it('SIGKILL mid-stream: every deny the child saw returned is in the trail, and no line is torn', async () => {
    const file = join(tempDir(), 'violations.log');
    // A small cap so the kill can also land around rotations.
    const child = runChild(file, 'loop', 0, 256 * 1024);
    const seen: string[] = [];
    let buffered = '';
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    await new Promise<void>((resolve, reject) => {
      child.on('exit', () => resolve());
      child.on('error', reject);
      child.stdout!.on('data', (d: Buffer) => {
        buffered += d.toString();
        const parts = buffered.split('\n');
        buffered = parts.pop()!;
        seen.push(...parts);
        if (seen.length >= 1500 && !child.killed) child.kill('SIGKILL');
      });
    });
    expect(stderr).toBe('');
    expect(child.signalCode).toBe('SIGKILL');
    expect(seen.length).toBeGreaterThanOrEqual(1500);
    const lines = trailLines(file);
    const ids = idsOf(lines);
    const missing = seen.filter((id) => !ids.has(id));
    expect(missing).toEqual([]);
    expect(trailFiles(file).length).toBeGreaterThan(1);
  }, 60_000);

  for (const mode of ['exit', 'throw'] as const) {
    it(`process ${mode === 'exit' ? 'exits' : 'throws'} right after a deny: the record is there`, async () => {
      const file = join(tempDir(), 'violations.log');
      const child = runChild(file, mode, 3, 1024 * 1024);
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
      });
      const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
      expect(code).toBe(mode === 'exit' ? 0 : 1);
      const seen = out.trim().split('\n');
      expect(seen).toHaveLength(3);
      const ids = idsOf(trailLines(file));
      for (const id of seen) expect(ids.has(id)).toBe(true);
    }, 30_000);
  }
});
