import { writeFileSync } from 'node:fs';
import type { Guard } from '@toolgate/core';
import { buildWorkspaces } from './buildWorkspaces.js';
import { classify, decidingAccess, firstReason } from './classify.js';
import { loadCorpus } from './corpus.js';
import { createSandboxedUsabilityGuard, createUsabilityGuard, policyFile } from './createUsabilityGuard.js';
import { type Outcome, printReport, printSandboxReport } from './report.js';

export interface UsabilityOptions {
  /** Only the cases of this corpus file (`git`, `text`…). */
  only?: string;
  /** Also write every outcome as JSON to this file. */
  json?: string;
}

/**
 * Checks every corpus command as a Claude Code `Bash` call in fresh workspaces A and B, prints the report
 * and returns the outcomes. The workspaces are removed afterwards.
 * @example
 * const outcomes = await runUsability({ only: 'git' });
 */
export async function runUsability(options: UsabilityOptions = {}): Promise<Outcome[]> {
  const corpus = loadCorpus().filter((c) => options.only === undefined || c.category === options.only);
  const workspaces = buildWorkspaces();
  try {
    // One pair of guards a policy file (policy.yaml, or a corpus file's `# policy:`), built before the clock.
    const guards = new Map<string | undefined, { guard: Guard; confined: Guard }>();
    for (const c of corpus)
      if (!guards.has(c.policy)) {
        const file = policyFile(c.policy);
        guards.set(c.policy, {
          guard: createUsabilityGuard(file),
          confined: createSandboxedUsabilityGuard(file),
        });
      }
    const outcomes: Outcome[] = [];
    const started = performance.now();
    for (const c of corpus) {
      const { guard, confined } = guards.get(c.policy)!;
      for (const ws of ['A', 'B'] as const) {
        const call = { tool: 'Bash', args: { command: c.command } };
        const d = await guard.check(call, workspaces.contexts[ws]);
        const s = await confined.check(call, workspaces.contexts[ws], { resolvePrompts: false });
        const got = classify(s);
        const expected = ws === 'A' ? c.expectA : c.expectB;
        outcomes.push({
          case: c,
          workspace: ws,
          expected,
          got: classify(d),
          reason: firstReason(d),
          decider: decidingAccess(d),
          sandboxed: s.sandboxed && s.action === 'allow' ? 'sandboxed' : got === 'uncertain' ? 'deny' : got,
        });
      }
    }
    const ms = performance.now() - started;
    printReport(outcomes);
    printSandboxReport(outcomes);
    console.log(`\n${outcomes.length} checks in ${ms.toFixed(0)} ms`);
    if (options.json) {
      const rows = outcomes.map((o) => ({
        where: o.case.where,
        command: o.case.command,
        workspace: o.workspace,
        expected: o.expected,
        got: o.got,
        sandboxed: o.sandboxed,
        reason: o.reason,
      }));
      writeFileSync(options.json, `${JSON.stringify(rows, null, 1)}\n`);
    }
    return outcomes;
  } finally {
    workspaces.dispose();
  }
}
