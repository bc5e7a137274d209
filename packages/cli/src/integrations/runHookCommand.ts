import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { buildGuard } from '../buildGuard.js';
import { claudeCode } from '../hook/claudeCodeTools.js';
import { geminiCli } from '../hook/geminiCli.js';
import { blockingError, type HookAnswer, type HookHost } from '../hook/hookHost.js';
import { readHookInput, stdinTimeoutMs } from '../hook/readHookInput.js';
import { runHook } from '../hook/runHook.js';
import { watchAudit } from './auditWatch.js';
import { extraPlugins } from './extraPlugins.js';
import { HOOK_HOSTS, type HookHostName } from './hookHostNames.js';

const HOSTS: Record<HookHostName, HookHost> = { 'claude-code': claudeCode, 'gemini-cli': geminiCli };

export interface HookCommandOptions {
  dialect?: string;
  policy?: string;
  workspace?: string;
  audit?: string;
  dialectAudit?: boolean;
  auditRequired?: boolean;
  approvals?: string;
  webhook?: string[];
  allowPath?: string[];
  wild?: boolean;
  approveAllowed?: boolean;
}

/**
 * A trail that could not be written is never silent. Required: the call is blocked. Otherwise the answer
 * stands, the failure goes to stderr, and an allow becomes exit 1: the assistants show a non-blocking error's
 * stderr to the user and fall back to their own permission rules (never more than the host would grant).
 */
function withAuditTrouble(
  answer: HookAnswer,
  trouble: string | undefined,
  required: boolean,
  allowed: boolean,
): HookAnswer {
  if (trouble === undefined) return answer;
  if (required) return blockingError(`${trouble}; audit is required (--audit-required)`);
  // Only an allow may become a non-blocking error (its output is then ignored: the host's own permission
  // flow runs). A deny or an `ask` is written on stdout with exit 0: any other exit code would drop it.
  return {
    ...answer,
    stderr: `${answer.stderr}toolgate: ${trouble}\n`,
    exitCode: allowed ? 1 : answer.exitCode,
  };
}

/**
 * One hook invocation. Every failure — a bad flag, an unreadable policy, a malformed event — is answered as a
 * blocking error (exit 2, reason on stderr): exit 1 or a crash would let the assistant run the tool.
 */
export async function runHookCommand(
  hostName: string,
  options: HookCommandOptions,
  stdin: NodeJS.ReadableStream | AsyncIterable<Buffer | string> = process.stdin,
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
        ...(options.allowPath !== undefined ? { allowPaths: options.allowPath } : {}),
        ...(options.wild ? { wild: true } : {}),
        env,
        pluginsFor: (policy, home) => extras.pluginsFor(policy, home),
        // A rewritten call whose sandbox needs the network proxy starts it (`toolgate sandbox-exec`): its
        // connections go to this hook's trail, its prompt rules to the approver named here (else denied).
        sandboxExecFlags: [
          ...(options.audit !== undefined ? ['--audit', resolve(options.audit)] : []),
          ...(options.approvals !== undefined ? ['--approvals', options.approvals] : []),
          ...(options.workspace !== undefined ? ['--workspace', resolve(options.workspace)] : []),
        ],
      });
      const audit = watchAudit(guard, extras.audit);
      const event = await readHookInput(stdin, stdinTimeoutMs(env));
      let allowed = false;
      const answer = await runHook(host, event, {
        guard,
        onDecision: (d) => {
          allowed = d.action === 'allow';
        },
        home: env.HOME ?? homedir(),
        env,
        approveAllowed: options.approveAllowed === true || settings.approveAllowed,
        ...(options.workspace !== undefined ? { workspace: options.workspace } : {}),
      });
      return withAuditTrouble(answer, audit.trouble(), options.auditRequired === true, allowed);
    } finally {
      extras.close();
    }
  } catch (error) {
    return blockingError(error instanceof Error ? error.message : String(error));
  }
}
