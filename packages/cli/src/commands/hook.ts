import type { Command } from 'commander';
import { HOOK_HOSTS } from '../integrations/hookHostNames.js';
import type { HookCommandOptions } from '../integrations/runHookCommand.js';

// Registration only: an assistant runs this command before every tool call, so what it needs loads when it
// runs, not when the CLI starts.
export function registerHook(program: Command): void {
  program
    .command('hook')
    .description(
      'Answer a coding assistant’s before-tool hook (claude-code: PreToolUse, gemini-cli: BeforeTool) from stdin',
    )
    .argument('<assistant>', `one of ${HOOK_HOSTS.join(', ')}`)
    .option(
      '--dialect <dialect>',
      'policy dialect (default: toolgate for toolgate.yaml, .toolgate/policy.yaml)',
    )
    .option(
      '--policy <file>',
      'policy file (default: discovered from the project dir: toolgate.yaml or .toolgate/policy.yaml, then ~/.config/toolgate/policy.yaml, then $TOOLGATE_POLICY)',
    )
    .option(
      '--workspace <dir>',
      'the workspace root (default: $CLAUDE_PROJECT_DIR or $GEMINI_PROJECT_DIR, else the event’s cwd)',
    )
    .option(
      '--approve-allowed',
      'answer a policy allow with the assistant’s "allow" (skips its own permission prompt); default: no decision',
    )
    .option('--audit <file>', 'append every decision to this audit trail (JSONL)')
    .option(
      '--approvals <strategy>',
      'gemini-cli only (claude-code asks through its own dialog): auto-deny (default) | auto-allow',
    )
    .action(async (assistant: string, options: HookCommandOptions) => {
      const { runHookCommand } = await import('../integrations/runHookCommand.js');
      const answer = await runHookCommand(assistant, options);
      process.stdout.write(answer.stdout);
      process.stderr.write(answer.stderr);
      process.exitCode = answer.exitCode;
    });
}
