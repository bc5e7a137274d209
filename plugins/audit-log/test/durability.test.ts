import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGuard } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { auditLog, trailFiles, verifyChain } from '../src/index.js';
import { context, tempDir, workspacePolicy } from './helpers.js';

const fixture = fileURLToPath(new URL('./fixtures/denyLoop.ts', import.meta.url));

function runChild(file: string, mode: string, count: number, maxSize: number): ChildProcess {
  return spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=source', fixture, file, mode, String(count), String(maxSize)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
}

/**
 * The whole lines of a trail. Only the newest file may end with a torn line — a record whose write(2) the
 * SIGKILL cut short, never acknowledged — and no other line may be torn.
 */
function trailLines(file: string): string[] {
  const out: string[] = [];
  const files = trailFiles(file);
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    if (f !== files.at(-1)) expect(text.endsWith('\n')).toBe(true);
    out.push(...text.split('\n').slice(0, -1));
  }
  return out;
}

function idsOf(lines: string[]): Set<string> {
  return new Set(lines.map((l) => (JSON.parse(l) as { decisionId: string }).decisionId));
}

/** Reads the ids the child prints (one per deny its check() returned) and SIGKILLs it after `count`. */
async function killAfter(
  child: ReturnType<typeof runChild>,
  count: number,
): Promise<{ seen: string[]; stderr: string }> {
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
      if (seen.length >= count && !child.killed) child.kill('SIGKILL');
    });
  });
  return { seen, stderr };
}

describe('durability: a deny check() returned is on disk, whatever happens to the process next', () => {
  it('SIGKILL mid-stream: every deny the child saw returned is in the trail, no whole line is torn', async () => {
    const file = join(tempDir(), 'violations.log');
    // A small cap so the kill can also land around rotations.
    const child = runChild(file, 'loop', 0, 256 * 1024);
    const { seen, stderr } = await killAfter(child, 1500);
    expect(stderr).toBe('');
    expect(child.signalCode).toBe('SIGKILL');
    expect(seen.length).toBeGreaterThanOrEqual(1500);
    const lines = trailLines(file);
    const ids = idsOf(lines);
    const missing = seen.filter((id) => !ids.has(id));
    expect(missing).toEqual([]);
    expect(trailFiles(file).length).toBeGreaterThan(1);
  }, 60_000);

  it('SIGKILL of a writer that holds the trail lock across turns: nothing it returned is lost, the next writer breaks the lock and chains on from its last whole record', async () => {
    const file = join(tempDir(), 'violations.log');
    const child = runChild(file, 'turns', 0, 256 * 1024);
    const { seen, stderr } = await killAfter(child, 300);
    expect(stderr).toBe('');
    expect(child.signalCode).toBe('SIGKILL');
    // It wrote on every turn, so it died holding the lock; the next writer breaks it and continues the chain.
    expect(existsSync(`${file}.lock`)).toBe(true);
    const root = tempDir();
    const audit = auditLog({ file, maxSize: 256 * 1024, lockWaitMs: 5_000 });
    const guard = createGuard({ plugins: [workspacePolicy(), audit] });
    const d = await guard.check({ tool: 'write_file', args: { path: '/etc/after-kill' } }, context(root));
    expect(d.action).toBe('deny');
    expect(audit.counters.written).toBe(1);
    audit.close();
    expect(existsSync(`${file}.lock`)).toBe(false);
    // A SIGKILL can land inside the write(2) of a record that spans two pages: Linux then returns after the
    // first page, and that record — never acknowledged, its check() did not resolve — is torn. The next writer
    // cuts it off under the lock and chains from the last whole record: no torn line stays in the trail.
    const lines = trailFiles(file).flatMap((f) => readFileSync(f, 'utf8').split('\n').slice(0, -1));
    const whole: Array<{ decisionId: string; prev: string; hash: string }> = [];
    const torn: string[] = [];
    for (const line of lines) {
      try {
        whole.push(JSON.parse(line));
      } catch {
        torn.push(line);
      }
    }
    expect(torn).toEqual([]);
    const ids = new Set(whole.map((r) => r.decisionId));
    expect(seen.filter((id) => !ids.has(id))).toEqual([]);
    const last = whole.at(-1)!;
    expect(last.decisionId).toBe(d.id);
    expect(last.prev).toBe(whole.at(-2)!.hash);
    const report = await verifyChain(file);
    expect(report.ok).toBe(true);
    expect(report.records).toBe(whole.length);
    expect(report.tornTail).toBeUndefined();
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

describe('a record cut short by a crash (a torn tail)', () => {
  it('verify reports it without a break; the next writer cuts it off and the chain goes on', async () => {
    const { appendFileSync } = await import('node:fs');
    const file = join(tempDir(), 'violations.log');
    const root = tempDir();
    const first = auditLog({ file });
    const g1 = createGuard({ plugins: [workspacePolicy(), first] });
    await g1.check({ tool: 'write_file', args: { path: '/etc/one' } }, context(root));
    first.close();
    // What a write(2) cut at a page boundary leaves: the start of a record and no newline.
    appendFileSync(file, '{"level":"warn","decisionId":"torn-by-kill","tool":"wr');
    const before = await verifyChain(file);
    expect(before.ok).toBe(true);
    expect(before.records).toBe(1);
    expect(before.tornTail?.reason).toMatch(/cut short/);
    const second = auditLog({ file });
    const g2 = createGuard({ plugins: [workspacePolicy(), second] });
    await g2.check({ tool: 'write_file', args: { path: '/etc/two' } }, context(root));
    second.close();
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('torn-by-kill');
    const after = await verifyChain(file);
    expect(after).toMatchObject({ ok: true, records: 2 });
    expect(after.tornTail).toBeUndefined();
  });

  it('a torn line that is not the last of the newest file is a break', async () => {
    const { appendFileSync } = await import('node:fs');
    const file = join(tempDir(), 'violations.log');
    const a = auditLog({ file });
    const g = createGuard({ plugins: [workspacePolicy(), a] });
    await g.check({ tool: 'write_file', args: { path: '/etc/one' } }, context(tempDir()));
    a.close();
    appendFileSync(file, '{"level":"warn","decisionId":"edited"}\n');
    const report = await verifyChain(file);
    expect(report.ok).toBe(false);
    expect(report.broken?.reason).toMatch(/no chain fields/);
  });
});
