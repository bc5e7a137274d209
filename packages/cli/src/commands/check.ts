import type { Decision } from '@toolgate/core';
import { explainReaches, lint, reachLine, reachVerdict } from '@toolgate/folder-rules';
import type { Command } from 'commander';
import { buildGuard } from '../buildGuard.js';
import { Exit, UsageError } from '../exitCodes.js';
import { addCallOptions, type CallCommandOptions, guardOptions, parseCall } from './callOptions.js';

const EXIT: Record<Decision['action'], number> = { allow: Exit.ALLOW, deny: Exit.DENY, prompt: Exit.PROMPT };

/**
 * `toolgate check`: judges one call without running it or asking anyone. Exit 0 allow, 1 deny, 3 prompt,
 * 2 usage or config error. With `--strict`, the policy's own tests must pass first.
 */
export async function runCheck(
  options: CallCommandOptions,
  out: NodeJS.WritableStream = process.stdout,
): Promise<number> {
  const call = parseCall(options.call);
  const built = await buildGuard(guardOptions(options));
  if (options.strict) {
    const result = await lint(built.policy, { ctx: built.ctx, plugins: built.extraPlugins });
    const failed = result.errors.filter((e) => e.code === 'test-failed');
    if (failed.length > 0)
      throw new UsageError(
        `--strict: ${failed.length} policy test(s) failed: ${failed.map((f) => `${f.source}: ${f.message}`).join('; ')}`,
      );
  }
  const d = await built.guard.check(call, built.ctx, { resolvePrompts: false });
  // Each host the call reaches with the network rule that decided it (issue 26).
  const reaches = explainReaches(built.policy, d.network ?? []);
  if (options.json) {
    out.write(
      `${JSON.stringify({
        decision: d.action,
        tool: d.tool,
        reasons: d.reasons,
        accesses: d.accesses,
        matched: d.matched,
        ...(reaches.length > 0 ? { network: reaches } : {}),
        ...(d.envelope ? { envelope: d.envelope } : {}),
        ...(d.sandboxed ? { sandboxed: d.sandboxed } : {}),
        policy: { dialect: built.policy.dialect, hash: built.policy.hash, sources: built.policy.sources },
      })}\n`,
    );
  } else {
    out.write(`${d.action.toUpperCase()}${d.sandboxed ? ' (sandboxed)' : ''} ${d.tool}\n`);
    if (d.sandboxed) {
      // Issue 22: the sandbox is the normal path for what analysis cannot prove; say so, and why.
      out.write('  would run in the sandbox compiled from the policy, because:\n');
      for (const f of d.sandboxed.uncertain) out.write(`    - ${f.reason}\n`);
      if (d.sandboxed.mode === 'always')
        out.write('    - the policy sandboxes every shell call (sandbox: always)\n');
    }
    for (const r of d.reasons) {
      const where = r.access ? ` ${r.access.realPath ?? r.access.raw}` : '';
      out.write(
        `  ${r.action} ${r.code}${where}: ${r.reason}${r.rule?.source ? ` (${r.rule.source})` : ''}\n`,
      );
    }
    if (d.action !== 'allow' && d.reasons[0]?.allowedPaths?.length)
      out.write(`  allowed: ${d.reasons[0].allowedPaths.join(', ')}\n`);
    for (const r of reaches) out.write(`  reach ${reachLine(r)}\n    => ${reachVerdict(r)}\n`);
    if (d.action !== 'allow' && d.reasons[0]?.allowedHosts?.length)
      out.write(`  allowed hosts: ${d.reasons[0].allowedHosts.join(', ')}\n`);
  }
  return EXIT[d.action];
}

export function registerCheck(program: Command): void {
  addCallOptions(
    program
      .command('check')
      .description('Judge one tool call against a policy (exit 0 allow, 1 deny, 3 prompt, 2 error)'),
  )
    .option('--strict', "run the policy's own tests first; a failing one is a config error")
    .action(async (options: CallCommandOptions) => {
      process.exitCode = await runCheck(options);
    });
}
