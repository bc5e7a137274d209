import type { Verdict } from './runOracle.js';
import type { Shell } from './traceCommand.js';

/** The key of a known gap: the corpus command (with placeholders) under one shell. */
export function gapKey(cmd: string, shell: Shell): string {
  return `${shell}\t${cmd}`;
}

/**
 * The closing report: every uncovered access (command, shell, syscall, path), uncovered existence checks
 * apart, and the mix of certain-and-covered / uncertain / uncovered runs — an oracle that is only ever
 * "covered because uncertain" proves nothing, so the mix is printed on every run.
 */
export function formatReport(verdicts: readonly Verdict[]): string {
  const lines: string[] = ['', '== differential oracle =='];
  for (const v of verdicts) {
    if (v.uncovered.length === 0) continue;
    lines.push(`UNCOVERED [${v.shell}] ${v.cmd}`);
    for (const k of v.uncovered) lines.push(`    ${k.syscall} ${k.op} ${k.path}`);
  }
  const stats = verdicts.filter((v) => v.uncoveredStats.length > 0);
  lines.push(`existence/metadata checks not covered (reported, not asserted): ${stats.length} runs`);
  for (const v of stats.slice(0, 15)) {
    lines.push(
      `  stat [${v.shell}] ${v.cmd}: ${v.uncoveredStats
        .map((k) => `${k.syscall} ${k.path}`)
        .slice(0, 3)
        .join(', ')}`,
    );
  }
  const uncertain = verdicts.filter((v) => v.uncertain).length;
  const uncovered = verdicts.filter((v) => v.uncovered.length > 0).length;
  const certain = verdicts.length - uncertain - uncovered;
  const pct = (n: number) => `${((100 * n) / Math.max(1, verdicts.length)).toFixed(1)}%`;
  lines.push(
    `mix over ${verdicts.length} runs: certain-and-covered ${certain} (${pct(certain)}), uncertain ${uncertain} (${pct(uncertain)}), uncovered ${uncovered} (${pct(uncovered)})`,
    '',
  );
  return lines.join('\n');
}
