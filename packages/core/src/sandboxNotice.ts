import type { Decision } from './types.js';

/**
 * What the model is told about a call that runs inside the OS sandbox (issue 22): that it runs confined,
 * why, and how the sandbox's refusals look — so "Read-only file system" or a hidden file reads as the policy
 * speaking, not as a broken machine. Hosts add it beside the call's result (Claude Code's
 * `additionalContext`, the MCP gateway's result text).
 */
export function sandboxNotice(decision: Pick<Decision, 'sandboxed'>): string {
  const why = decision.sandboxed?.uncertain.map((f) => f.reason).filter((r) => r !== '') ?? [];
  const because =
    decision.sandboxed?.mode === 'always'
      ? ' (the policy sandboxes every shell call)'
      : why.length > 0
        ? ` because analysis could not prove it (${why.slice(0, 3).join('; ')}${why.length > 3 ? '; …' : ''})`
        : '';
  return (
    `toolgate: this command ran inside an OS sandbox compiled from the policy${because}. ` +
    'Writes outside the allowed paths fail ("Read-only file system", "Permission denied") and denied files ' +
    'are hidden: such errors are the policy, not a fault of the machine.' +
    (decision.sandboxed?.limits
      ? ` Limits of the run (policy limits: ${decision.sandboxed.limits}): past them a fork fails ("Cannot fork"), ` +
        'an allocation fails, a write to /tmp fails with "No space left on device", and at the wall time the ' +
        'command is ended ("timeout: sending signal TERM", exit 124).'
      : '')
  );
}
