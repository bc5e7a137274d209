import type { Verdict } from './runOracle.js';
import type { Shell } from './traceCommand.js';

function mix(verdicts: readonly Verdict[]): string {
  const uncertain = verdicts.filter((v) => v.uncertain).length;
  const uncovered = verdicts.filter((v) => v.uncovered.length > 0).length;
  const certain = verdicts.length - uncertain - uncovered;
  const pct = (n: number) => `${((100 * n) / Math.max(1, verdicts.length)).toFixed(1)}%`;
  return `certain-and-covered ${certain} (${pct(certain)}), uncertain ${uncertain} (${pct(uncertain)}), uncovered ${uncovered} (${pct(uncovered)})`;
}

/** The key of a known gap: the corpus command (with placeholders) under one shell. */
export function gapKey(cmd: string, shell: Shell): string {
  return `${shell}\t${cmd}`;
}

/**
 * The closing report: every uncovered access (command, shell, syscall, path), uncovered existence checks
 * apart, and the mix of certain-and-covered / uncertain / uncovered runs — an oracle that is only ever
 * "covered because uncertain" proves nothing, so the mix is printed on every run.
 */
export function formatReport(verdicts: readonly Verdict[], groups: Record<string, string[]> = {}): string {
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
  lines.push(`mix over ${verdicts.length} runs: ${mix(verdicts)}`);
  for (const [name, cmds] of Object.entries(groups)) {
    const mine = verdicts.filter((v) => cmds.includes(v.cmd));
    lines.push(`  ${name} (${mine.length} runs): ${mix(mine)}`);
  }
  // An everyday command toolgate cannot analyse is denied: a false deny, a defect like a bypass.
  const everyday = Object.entries(groups)
    .filter(([name]) => !name.startsWith('attacks'))
    .flatMap(([, cmds]) => cmds);
  const denied = new Map<string, string>();
  for (const v of verdicts) {
    if (!v.uncertain || !everyday.includes(v.cmd)) continue;
    denied.set(v.cmd, v.claimed.find((c) => c.includes(' ? ')) ?? '');
  }
  if (denied.size > 0) lines.push(`everyday commands toolgate says uncertain (denied): ${denied.size}`);
  for (const [cmd, why] of denied) lines.push(`  ${cmd}   -- ${why}`);
  lines.push('');
  return lines.join('\n');
}
