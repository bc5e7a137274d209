import { writeFileSync } from 'node:fs';
import { buildWorkspaces } from './buildWorkspaces.js';
import { classify, decidingAccess, firstReason } from './classify.js';
import { loadCorpus } from './corpus.js';
import { createUsabilityGuard } from './createUsabilityGuard.js';
import { type Outcome, printReport } from './report.js';

// `pnpm usability [--only CATEGORY] [--json FILE]`: checks every corpus command as a Claude Code `Bash` call in
// fresh workspaces A and B and prints the report. A report, not a gate: it exits 0 unless it crashes.
const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const only = flag('--only');
const jsonOut = flag('--json');

const corpus = loadCorpus().filter((c) => only === undefined || c.category === only);
const workspaces = buildWorkspaces();
try {
  const guard = createUsabilityGuard();
  const outcomes: Outcome[] = [];
  const started = performance.now();
  for (const c of corpus) {
    for (const ws of ['A', 'B'] as const) {
      const d = await guard.check({ tool: 'Bash', args: { command: c.command } }, workspaces.contexts[ws]);
      const expected = ws === 'A' ? c.expectA : c.expectB;
      outcomes.push({
        case: c,
        workspace: ws,
        expected,
        got: classify(d),
        reason: firstReason(d),
        decider: decidingAccess(d),
      });
    }
  }
  const ms = performance.now() - started;
  printReport(outcomes);
  console.log(`\n${outcomes.length} checks in ${ms.toFixed(0)} ms`);
  if (jsonOut) {
    const rows = outcomes.map((o) => ({
      where: o.case.where,
      command: o.case.command,
      workspace: o.workspace,
      expected: o.expected,
      got: o.got,
      reason: o.reason,
    }));
    writeFileSync(jsonOut, `${JSON.stringify(rows, null, 1)}\n`);
  }
} finally {
  workspaces.dispose();
}
