import type { Command } from 'commander';
import type { SandboxExecOptions } from '../integrations/sandboxExec.js';

// Registration only. Not for people: a rewritten shell call starts with it when the policy's network goes
// through the sandbox's proxy (src/integrations/sandboxExec.ts).
export function registerSandboxExec(program: Command): void {
  program
    .command('sandbox-exec', { hidden: true })
    .description(
      "Run a rewritten call's bubblewrap line with the sandbox's network proxy alive for as long as it runs",
    )
    .requiredOption('--proxy-socket <path>', 'where the proxy listens (its directory must not exist yet)')
    .option('--dialect <dialect>', 'the policy dialect')
    .option('--policy <file>', 'the policy file (default: discovered as every command does)')
    .option('--agent <name>', 'apply the per-agent overlay of this agent')
    .option('--overlay <file...>', 'per-agent overlay files, applied in order')
    .option('--workspace <dir>', 'the workspace root (for the audit records)')
    .option('--audit <file>', "audit trail of the run's network connections")
    .option(
      '--approvals <strategy>',
      'who answers prompt rules: tty | auto-deny | auto-allow (default: denied)',
    )
    .argument('<command...>', 'the bubblewrap command line, after --')
    .action(async (command: string[], options: SandboxExecOptions) => {
      const { sandboxExec } = await import('../integrations/sandboxExec.js');
      process.exitCode = await sandboxExec(command, options);
    });
}
