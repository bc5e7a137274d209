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
      'policy dialect (default: inferred from the file: toolgate for toolgate.yaml, .toolgate/policy.yaml, else from its keys)',
    )
    .option(
      '--policy <file>',
      'policy file (default: discovered from the project dir: toolgate.yaml or .toolgate/policy.yaml, then ~/.config/toolgate/policy.yaml, then $TOOLGATE_POLICY; wolo: ~/.wolo/config.yaml)',
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
    .option('--audit-required', 'fail closed: deny every call while the audit trail cannot be written')
    .option(
      '--no-dialect-audit',
      "no audit trail from the dialect's own settings (wolo audit_denied, Wunderland)",
    )
    .option(
      '--webhook <url...>',
      'notify these receivers of violations (also TOOLGATE_/WUNDERLAND_VIOLATION_WEBHOOKS)',
    )
    .option(
      '-P, --allow-path <dir...>',
      'wolo: writes allowed here without confirmation (seed 002 cli_paths)',
    )
    .option(
      '--wild',
      'wolo: wild mode, every check bypassed and every decision audited (WOLO_WILD_MODE=true)',
    )
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
