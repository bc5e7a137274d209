import { spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus, corpusGroups } from './corpus/index.js';
import { knownGapList } from './corpus/knownGaps.js';
import { formatReport, gapKey } from './report.js';
import { judgeCommand, missingPrograms, pool, type Verdict } from './runOracle.js';
import { buildTemplate, snapshotTree } from './scratchTree.js';
import type { Shell } from './traceCommand.js';

// The differential oracle (issue 13): every command of the corpus runs for real under bash and dash in a
// throwaway scratch tree, traced by strace; every file operation the kernel performed there must be covered
// by what toolgate's shell extraction reported for it, or toolgate must have said uncertain.

const SHELLS: Shell[] = ['bash', 'dash'];
const knownGaps = new Map(
  knownGapList.flatMap((g) => g.shells.map((shell): [string, string] => [gapKey(g.cmd, shell), g.reason])),
);
// Two runs at a time: the machine's 2 cores are shared (ORACLE_CONCURRENCY overrides on a bigger one).
const CONCURRENCY = Number(process.env.ORACLE_CONCURRENCY) || 2;
const TIMEOUT_MS = 20_000;

let root: string;
let verdicts: Verdict[] = [];

beforeAll(async () => {
  const missing = missingPrograms();
  if (missing !== null) throw new Error(missing);
  const probe = spawnSync('strace', ['-f', '-qq', '-e', 'trace=%file', '-o', '/dev/null', 'true'], {
    encoding: 'utf8',
  });
  if (probe.status !== 0) throw new Error(`strace cannot trace here (ptrace refused?): ${probe.stderr}`);
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-oracle-')));
  buildTemplate(join(root, 'template'));
  const snapshot = snapshotTree(join(root, 'template'));
  const tasks = corpus.flatMap((cmd, i) =>
    SHELLS.map(
      (shell) => () =>
        judgeCommand(cmd, shell, snapshot, join(root, `${String(i).padStart(3, '0')}-${shell}`), TIMEOUT_MS),
    ),
  );
  verdicts = await pool(tasks, CONCURRENCY);
  process.stdout.write(formatReport(verdicts, corpusGroups));
  // For whoever triages gaps: the full verdicts as JSON.
  if (process.env.ORACLE_REPORT) writeFileSync(process.env.ORACLE_REPORT, JSON.stringify(verdicts, null, 1));
}, 900_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('differential oracle: the kernel says what a command touched', () => {
  it('has a corpus of at least 300 distinct commands', () => {
    expect(new Set(corpus).size).toBe(corpus.length);
    expect(corpus.length).toBeGreaterThanOrEqual(300);
  });

  it('lists known gaps only for commands of the corpus, once each', () => {
    const strays = knownGapList.filter((g) => !corpus.includes(g.cmd)).map((g) => g.cmd);
    expect(strays.length, strays.join('\n')).toBe(0);
    expect(knownGaps.size).toBe(knownGapList.reduce((n, g) => n + g.shells.length, 0));
  });

  it('ran every command to completion (none hit the timeout)', () => {
    const late = verdicts.filter((v) => v.timedOut).map((v) => `${v.shell}: ${v.cmd}`);
    expect(late.length, late.join('\n')).toBe(0);
  });

  it('saw the kernel touch the scratch tree for most commands (the tracing works)', () => {
    expect(verdicts.filter((v) => v.touched > 0).length).toBeGreaterThan(verdicts.length / 2);
  });

  it('finds no uncovered access outside the known gaps', () => {
    const unexpected = verdicts
      .filter((v) => v.uncovered.length > 0 && !knownGaps.has(gapKey(v.cmd, v.shell)))
      .map(
        (v) =>
          `${v.shell}: ${v.cmd}\n${v.uncovered.map((k) => `    ${k.syscall} ${k.op} ${k.path}`).join('\n')}`,
      );
    // Compared by count with the list as the message: a deep diff of hundreds of lines is slow to print.
    expect(unexpected.length, `new uncovered accesses:\n${unexpected.join('\n')}`).toBe(0);
  });

  it('still finds every known gap uncovered (delete fixed ones from corpus/knownGaps.ts)', () => {
    const fixed = [...knownGaps.keys()].filter((key) => {
      const v = verdicts.find((x) => gapKey(x.cmd, x.shell) === key);
      return v === undefined || v.uncovered.length === 0;
    });
    expect(fixed.length, `covered now, delete from corpus/knownGaps.ts:\n${fixed.join('\n')}`).toBe(0);
  });
});
