import type { Got } from './classify.js';
import type { CorpusCase, Expected } from './corpus.js';

/** One case checked in one workspace. */
export interface Outcome {
  case: CorpusCase;
  workspace: 'A' | 'B';
  expected: Expected;
  got: Got;
  reason: string;
  /** `CODE op program` of the deciding finding (see `decidingAccess`). */
  decider: string;
  /** The answer with the OS sandbox on (`sandbox: uncertain`): `sandboxed` = allowed inside bubblewrap. */
  sandboxed: 'allow' | 'sandboxed' | 'deny' | 'prompt' | 'error';
}

const GOTS: readonly Got[] = ['allow', 'deny', 'uncertain', 'prompt', 'error'];

function pct(n: number, of: number): string {
  return of === 0 ? '0.0' : ((100 * n) / of).toFixed(1);
}

function mix(outcomes: readonly Outcome[], pick: (o: Outcome) => string): string {
  const counts = new Map<string, number>();
  for (const o of outcomes) counts.set(pick(o), (counts.get(pick(o)) ?? 0) + 1);
  return GOTS.filter((g) => counts.has(g))
    .map((g) => `${g} ${counts.get(g)} (${pct(counts.get(g) ?? 0, outcomes.length)} %)`)
    .join(', ');
}

/**
 * The shape of a reason with its specifics blanked (paths, quoted words, numbers), so that mismatches with
 * one cause count together.
 */
export function causeOf(reason: string): string {
  return reason
    .replace(/"(?:[^"\\]|\\.)*"/g, '"…"')
    .replace(/'[^']*'/g, "'…'")
    .replace(/`[^`]*`/g, '`…`')
    .replace(/(^|[\s(=:])(?:~|\.{1,2})?\/[^\s,;:)]*/g, '$1<path>')
    .replace(/\b\d+\b/g, 'N')
    .slice(0, 160);
}

/** Prints the mix, the agreement, the mismatches by category and cause, and every mismatch. */
export function printReport(outcomes: readonly Outcome[], log: (line: string) => void = console.log): void {
  const cases = new Set(outcomes.map((o) => o.case)).size;
  log(`usability corpus: ${cases} commands × 2 workspaces (A: no .env; B: gitignored .env at the root)\n`);
  for (const ws of ['A', 'B'] as const) {
    const mine = outcomes.filter((o) => o.workspace === ws);
    const exact = mine.filter((o) => o.got === o.expected).length;
    const sameAllow = mine.filter((o) => (o.got === 'allow') === (o.expected === 'allow')).length;
    const falseDeny = mine.filter((o) => o.expected === 'allow' && o.got !== 'allow').length;
    const falseAllow = mine.filter((o) => o.expected !== 'allow' && o.got === 'allow').length;
    log(`workspace ${ws}`);
    log(`  expected: ${mix(mine, (o) => o.expected)}`);
    log(`  toolgate: ${mix(mine, (o) => o.got)}`);
    log(`  exact agreement ${exact}/${mine.length} (${pct(exact, mine.length)} %);`);
    log(`  allow vs not-allow agreement ${sameAllow}/${mine.length} (${pct(sameAllow, mine.length)} %)`);
    log(
      `  false denies (expected allow, not allowed) ${falseDeny}; false allows (expected not allowed, allowed) ${falseAllow}`,
    );
    for (const e of ['allow', 'deny', 'uncertain'] as const) {
      const row = mine.filter((o) => o.expected === e);
      log(
        `  expected ${e.padEnd(9)} → ${GOTS.map((g) => `${g} ${row.filter((o) => o.got === g).length}`).join(', ')}`,
      );
    }
    log('');
  }
  const mismatches = outcomes.filter((o) => o.got !== o.expected);
  log('mismatches by category (A + B): mismatched / checks, of which false denies and false allows');
  const byCat = new Map<string, { n: number; of: number; fd: number; fa: number }>();
  for (const o of outcomes) {
    const c = byCat.get(o.case.category) ?? { n: 0, of: 0, fd: 0, fa: 0 };
    c.of++;
    if (o.got !== o.expected) c.n++;
    if (o.expected === 'allow' && o.got !== 'allow') c.fd++;
    if (o.expected !== 'allow' && o.got === 'allow') c.fa++;
    byCat.set(o.case.category, c);
  }
  for (const [cat, c] of [...byCat].sort((x, y) => y[1].n - x[1].n))
    log(
      `  ${cat.padEnd(12)} ${String(c.n).padStart(4)} / ${String(c.of).padEnd(4)} false deny ${String(c.fd).padStart(4)}, false allow ${c.fa}`,
    );
  log(
    '\nmost common causes of mismatch (expected→got, deciding code, access (* = subtree), program — reason with specifics blanked):',
  );
  const causes = new Map<string, { n: number; examples: string[] }>();
  for (const o of mismatches) {
    const why = o.reason
      ? `${o.decider} — ${causeOf(o.reason.slice(o.reason.indexOf(':') + 1).trim())}`
      : '(allowed)';
    const key = `${o.expected}→${o.got}  ${why}`;
    const c = causes.get(key) ?? { n: 0, examples: [] };
    c.n++;
    if (c.examples.length < 3 && !c.examples.includes(o.case.command)) c.examples.push(o.case.command);
    causes.set(key, c);
  }
  [...causes]
    .sort((x, y) => y[1].n - x[1].n)
    .slice(0, 20)
    .forEach(([key, c], i) => {
      log(
        `  ${String(i + 1).padStart(2)}. ${String(c.n).padStart(3)}× ${key}\n        e.g. ${c.examples.join('  |  ').replaceAll('\n', '⏎')}`,
      );
    });
  log(`\nevery mismatch (${mismatches.length}):`);
  for (const o of mismatches)
    log(
      `  [${o.workspace}] ${o.case.where.padEnd(16)} ${o.case.command.replaceAll('\n', '⏎')}\n        expected ${o.expected}, got ${o.got}${o.reason ? `: ${o.reason}` : ''}`,
    );
}

/**
 * Issue 22's yardstick: with the sandbox on, how much everyday work runs (allowed, or allowed sandboxed).
 * Everyday work is every case not expected to be denied by a rule (expected allow or uncertain).
 */
export function printSandboxReport(
  outcomes: readonly Outcome[],
  log: (line: string) => void = console.log,
): void {
  log('\nwith the OS sandbox on (sandbox: uncertain): allowed / sandboxed / denied');
  for (const ws of ['A', 'B'] as const) {
    const mine = outcomes.filter((o) => o.workspace === ws);
    const count = (rows: readonly Outcome[], k: Outcome['sandboxed']) =>
      rows.filter((o) => o.sandboxed === k).length;
    const all = (rows: readonly Outcome[]) =>
      `allow ${count(rows, 'allow')}, sandboxed ${count(rows, 'sandboxed')}, deny ${count(rows, 'deny')}, prompt ${count(rows, 'prompt')}, error ${count(rows, 'error')}`;
    const everyday = mine.filter((o) => o.expected !== 'deny');
    const usable = everyday.filter((o) => o.sandboxed === 'allow' || o.sandboxed === 'sandboxed').length;
    const without = everyday.filter((o) => o.got === 'allow').length;
    log(`workspace ${ws}: every case: ${all(mine)}`);
    log(
      `  everyday work (${everyday.length} cases not expected to be denied): usable ${usable} (${pct(usable, everyday.length)} %) with the sandbox, ${without} (${pct(without, everyday.length)} %) without`,
    );
    const expectedDeny = mine.filter((o) => o.expected === 'deny');
    const leaked = expectedDeny.filter((o) => o.sandboxed === 'allow').length;
    log(`  expected denies allowed unconfined with the sandbox on: ${leaked} (must be 0)`);
    for (const o of everyday.filter((x) => x.sandboxed !== 'allow' && x.sandboxed !== 'sandboxed'))
      log(`    not usable: ${o.case.where} ${o.case.command.replaceAll('\n', '⏎')} → ${o.sandboxed}`);
  }
}
