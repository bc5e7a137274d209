import type { Command } from 'commander';
import type { RunCommandOptions } from '../integrations/runSandboxCommand.js';

// Registration only: the sandbox compiler loads when the command runs, so other commands do not pay for it.
export function registerRun(program: Command): void {
  program
    .command('run')
    .description(
      'Run a command inside an OS sandbox (bubblewrap) compiled from the policy: writes only where it allows writes, denied paths masked, the rest read-only',
    )
    .option(
      '--dialect <dialect>',
      'toolgate | folderguard | wunderland | wolo | hermes | openfang (default: inferred from the file)',
    )
    .option(
      '--policy <file>',
      'the policy file (default: toolgate.yaml or .toolgate/policy.yaml here or above, ~/.config/toolgate/policy.yaml, $TOOLGATE_POLICY)',
    )
    .option('--agent <name>', 'apply the per-agent overlay of this agent')
    .option('--overlay <file...>', 'per-agent overlay files, applied in order')
    .option('--cwd <dir>', 'the directory the command runs in (default: this shell’s)')
    .option(
      '--workspace <dir>',
      "the workspace root (default: a discovered project policy's directory, else --cwd)",
    )
    .option('--approve <path...>', 'prompt-tier paths a human approved reading before the run')
    .option('--approve-write <path...>', 'prompt-tier paths a human approved writing before the run')
    .option('--print', 'print the bubblewrap command line instead of running it')
    .option(
      '--audit <file>',
      "audit trail of the run's network connections (a policy whose network section needs the proxy)",
    )
    .option(
      '--approvals <strategy>',
      "who answers the network section's prompt rules during the run: tty | auto-deny | auto-allow (default: denied)",
    )
    .argument('<command...>', 'the command and its arguments, after --')
    .action(async (command: string[], options: RunCommandOptions) => {
      const { runSandboxCommand } = await import('../integrations/runSandboxCommand.js');
      process.exitCode = await runSandboxCommand(command, options);
    });
}
