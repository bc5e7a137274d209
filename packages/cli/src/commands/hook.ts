import { homedir } from 'node:os';
import type { Command } from 'commander';
import { buildGuard } from '../buildGuard.js';
import { claudeCode } from '../hook/claudeCodeTools.js';
import { geminiCli } from '../hook/geminiCli.js';
import { blockingError, type HookAnswer, type HookHost } from '../hook/hookHost.js';
import { runHook } from '../hook/runHook.js';
import { extraPlugins } from '../integrations/extraPlugins.js';
import { readStdin } from '../integrations/readStdin.js';

const HOSTS: Record<string, HookHost> = { 'claude-code': claudeCode, 'gemini-cli': geminiCli };

export interface HookCommandOptions {
  dialect: string;
  policy: string;
  workspace?: string;
  audit?: string;
  approvals?: string;
}

/**
 * One hook invocation. Every failure — a bad flag, an unreadable policy, a malformed event — is answered as a
 * blocking error (exit 2, reason on stderr): exit 1 or a crash would let the assistant run the tool.
 */
export async function runHookCommand(
  hostName: string,
  options: HookCommandOptions,
  stdin: NodeJS.ReadableStream = process.stdin,
): Promise<HookAnswer> {
  try {
    const host = HOSTS[hostName];
    if (!host)
      return blockingError(
        `unknown assistant ${JSON.stringify(hostName)}; expected one of ${Object.keys(HOSTS).join(', ')}`,
      );
    const env = process.env;
    const extras = extraPlugins({ ...options, approvals: options.approvals ?? 'auto-deny' });
    try {
      const { guard } = buildGuard({
        dialect: options.dialect,
        policy: options.policy,
        ...(options.workspace !== undefined ? { workspace: options.workspace } : {}),
        env,
        plugins: extras.plugins,
      });
      const event = await readStdin(stdin);
      return await runHook(host, event, {
        guard,
        home: env.HOME ?? homedir(),
        env,
        ...(options.workspace !== undefined ? { workspace: options.workspace } : {}),
      });
    } finally {
      extras.close();
    }
  } catch (error) {
    return blockingError(error instanceof Error ? error.message : String(error));
  }
}

export function registerHook(program: Command): void {
  program
    .command('hook')
    .description(
      'Answer a coding assistant’s before-tool hook (claude-code: PreToolUse, gemini-cli: BeforeTool) from stdin',
    )
    .argument('<assistant>', `one of ${Object.keys(HOSTS).join(', ')}`)
    .requiredOption('--dialect <dialect>', 'policy dialect')
    .requiredOption('--policy <file>', 'policy file')
    .option(
      '--workspace <dir>',
      'the workspace root (default: $CLAUDE_PROJECT_DIR or $GEMINI_PROJECT_DIR, else the event’s cwd)',
    )
    .option('--audit <file>', 'append every decision to this audit trail (JSONL)')
    .option(
      '--approvals <strategy>',
      'gemini-cli only (claude-code asks through its own dialog): auto-deny | auto-allow',
      'auto-deny',
    )
    .action(async (assistant: string, options: HookCommandOptions) => {
      const answer = await runHookCommand(assistant, options);
      process.stdout.write(answer.stdout);
      process.stderr.write(answer.stderr);
      process.exitCode = answer.exitCode;
    });
}
