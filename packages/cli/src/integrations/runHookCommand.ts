import { homedir } from 'node:os';
import { isAbsolute } from 'node:path';
import { buildGuard } from '../buildGuard.js';
import { claudeCode } from '../hook/claudeCodeTools.js';
import { geminiCli } from '../hook/geminiCli.js';
import { blockingError, type HookAnswer, type HookHost } from '../hook/hookHost.js';
import { runHook } from '../hook/runHook.js';
import { extraPlugins } from './extraPlugins.js';
import { HOOK_HOSTS, type HookHostName } from './hookHostNames.js';
import { readStdin } from './readStdin.js';

const HOSTS: Record<HookHostName, HookHost> = { 'claude-code': claudeCode, 'gemini-cli': geminiCli };

export interface HookCommandOptions {
  dialect?: string;
  policy?: string;
  workspace?: string;
  audit?: string;
  approvals?: string;
  approveAllowed?: boolean;
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
    const host = (HOOK_HOSTS as readonly string[]).includes(hostName)
      ? HOSTS[hostName as HookHostName]
      : undefined;
    if (!host)
      return blockingError(
        `unknown assistant ${JSON.stringify(hostName)}; expected one of ${HOOK_HOSTS.join(', ')}`,
      );
    const env = process.env;
    // Claude Code answers prompts with its own dialog (`ask`): no approver to load. Gemini CLI cannot ask.
    const extras = await extraPlugins({
      ...options,
      approvals: host.resolvePrompts ? (options.approvals ?? 'auto-deny') : undefined,
    });
    try {
      // The policy is the project's: discovered from the directory the assistant says is the project.
      const projectDir = env[host.projectDirEnv];
      const { guard, settings } = await buildGuard({
        ...(options.dialect !== undefined ? { dialect: options.dialect } : {}),
        ...(options.policy !== undefined ? { policy: options.policy } : {}),
        ...(options.workspace !== undefined ? { workspace: options.workspace } : {}),
        ...(projectDir && isAbsolute(projectDir) ? { discoverFrom: projectDir } : {}),
        env,
        plugins: extras.plugins,
      });
      const event = await readStdin(stdin);
      return await runHook(host, event, {
        guard,
        home: env.HOME ?? homedir(),
        env,
        approveAllowed: options.approveAllowed === true || settings.approveAllowed,
        ...(options.workspace !== undefined ? { workspace: options.workspace } : {}),
      });
    } finally {
      extras.close();
    }
  } catch (error) {
    return blockingError(error instanceof Error ? error.message : String(error));
  }
}
