import { lint } from '@toolgate/folder-rules';
import type { Command } from 'commander';
import { buildGuard } from '../buildGuard.js';
import { Exit } from '../exitCodes.js';
import { addPolicyOptions } from './callOptions.js';

export interface LintCommandOptions {
  dialect?: string;
  policy?: string;
  agent?: string;
  overlay?: string[];
  cwd?: string;
  workspace?: string;
  json?: boolean;
}

/** `toolgate lint`: checks a policy and runs its own tests. Exit 1 on errors, 0 with warnings only. */
export async function runLint(
  options: LintCommandOptions,
  out: NodeJS.WritableStream = process.stdout,
): Promise<number> {
  const built = await buildGuard({
    ...(options.dialect !== undefined ? { dialect: options.dialect } : {}),
    ...(options.policy !== undefined ? { policy: options.policy } : {}),
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(options.workspace !== undefined ? { workspace: options.workspace } : {}),
    ...(options.agent !== undefined ? { agent: options.agent } : {}),
    ...(options.overlay !== undefined ? { overlays: options.overlay } : {}),
  });
  const result = await lint(built.policy, { ctx: built.ctx, plugins: built.extraPlugins });
  if (options.json)
    out.write(
      `${JSON.stringify({ ...result, policy: { dialect: built.policy.dialect, hash: built.policy.hash } })}\n`,
    );
  else {
    for (const f of [...result.errors, ...result.warnings])
      out.write(`${f.level} ${f.code} ${f.source}: ${f.message}\n`);
    out.write(
      `${result.errors.length} error(s), ${result.warnings.length} warning(s); tests ${result.tests.passed} passed, ${result.tests.failed} failed\n`,
    );
  }
  return result.errors.length > 0 ? Exit.FAILED : Exit.OK;
}

export function registerLint(program: Command): void {
  addPolicyOptions(
    program
      .command('lint')
      .description("Check a policy: globs, shadowed rules, dead denies, and the policy's own tests"),
  )
    .option('--cwd <dir>', 'the directory tests run in (default: this shell)')
    .option('--workspace <dir>', 'the workspace root for tests (default: --cwd)')
    .option('--json', 'print JSON')
    .action(async (options: LintCommandOptions) => {
      process.exitCode = await runLint(options);
    });
}
