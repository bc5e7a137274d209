import { dirname, isAbsolute, resolve } from 'node:path';
import type { Access, CallContext } from '@toolgate/core';
import { createAccess } from '@toolgate/core';
import { limitsOf, newProxySocketPath, SandboxCompileError, sandbox, shellJoin } from '@toolgate/sandbox';
import { loadConfig } from '../config/loadConfig.js';
import { sandboxReadOnlyDirs } from '../config/policyCache.js';
import { UsageError } from '../exitCodes.js';
import { writeOut } from '../hook/writeOut.js';
import type { ProxiedRun } from '../run/execProxied.js';
import { execSandboxed, SANDBOX_FAILED } from '../run/execSandboxed.js';

export interface RunCommandOptions {
  /** Absent: inferred from the file, as every command does. */
  dialect?: string;
  /** Absent: discovered from the command's cwd, as every command does (see discoverPolicy). */
  policy?: string;
  agent?: string;
  overlay?: string[];
  cwd?: string;
  workspace?: string;
  approve?: string[];
  approveWrite?: string[];
  print?: boolean;
  /** Audit trail of the run's network connections (a policy whose network goes through the proxy). */
  audit?: string;
  /** Who answers the network section's prompt rules during the run (absent: they are denied). */
  approvals?: string;
}

export { SANDBOX_FAILED };

function absolute(dir: string, flag: string): string {
  if (dir.trim() === '') throw new UsageError(`${flag} must not be empty`);
  return isAbsolute(dir) ? resolve(dir) : resolve(process.cwd(), dir);
}

/**
 * What `toolgate run` does before the command runs: the bubblewrap command line (`argv`) and the policy's
 * wall-time limit (the runner's own deadline), or the answer without running anything — `--print`'s line,
 * or why the sandbox cannot be built (exit 125).
 */
export type SandboxPlan =
  | { argv: string[]; wallTimeMs?: number; proxied?: ProxiedRun }
  | { exitCode: number; stdout: string; stderr: string };

/**
 * Runs a plan's bubblewrap line; with `proxied` (the policy's network goes through the filtering proxy) the
 * proxy runs in this process for as long as the command (execProxied).
 */
export function execPlan(plan: {
  argv: string[];
  wallTimeMs?: number;
  proxied?: ProxiedRun;
}): Promise<number> {
  // Loaded only for such a run: the proxy's modules (http, net, the audit and approvals plugins) would cost
  // every other `toolgate run` their load time.
  if (plan.proxied) {
    const run = plan.proxied;
    return import('../run/execProxied.js').then(({ execProxied }) => execProxied(run));
  }
  return execSandboxed(plan.argv, plan.wallTimeMs);
}

/**
 * `toolgate run -- CMD…`: compiles the policy into a bubblewrap sandbox and runs the command in it with this
 * process's cwd (or --cwd), environment and stdio. Resolves with the command's exit code; a command ended
 * by a signal ends this process by the same signal. The sandbox never degrades: when it cannot start, the
 * command does not run (exit 125, the reason on stderr).
 */
export async function runSandboxCommand(command: string[], o: RunCommandOptions): Promise<number> {
  const plan = await planSandboxCommand(command, o);
  if ('argv' in plan) return execPlan(plan);
  writeOut(1, plan.stdout);
  writeOut(2, plan.stderr);
  return plan.exitCode;
}

/**
 * The plan of `toolgate run` in this process's environment and cwd (the hook server makes it with the
 * caller's: bin/toolgate.cjs then only runs `argv`). The policy comes from the on-disk cache of compiled
 * policies when its files are unchanged (`loadConfig`); the mounts are compiled afresh on every run (the glob
 * walk sees what exists now). Usage and configuration errors are thrown.
 */
export async function planSandboxCommand(command: string[], o: RunCommandOptions): Promise<SandboxPlan> {
  if (command.length === 0) throw new UsageError('run: give the command after --');
  const env = process.env;
  const home = env.HOME;
  if (!home || !isAbsolute(home))
    throw new UsageError(`HOME must be set to an absolute path, got ${JSON.stringify(home)}`);
  const cwd = absolute(o.cwd ?? process.cwd(), '--cwd');
  // Found like every other command's (issue 25): --policy, else toolgate.yaml / .toolgate/policy.yaml from the
  // command's cwd upwards, ~/.config/toolgate/policy.yaml, $TOOLGATE_POLICY.
  const config = await loadConfig({
    ...(o.policy !== undefined ? { policy: absolute(o.policy, '--policy') } : {}),
    ...(o.dialect !== undefined ? { dialect: o.dialect } : {}),
    discoverFrom: cwd,
    env,
    ...(o.agent !== undefined ? { agent: o.agent } : {}),
    ...(o.overlay !== undefined ? { overlays: o.overlay.map((f) => absolute(f, '--overlay')) } : {}),
  });
  const { policy } = config;
  // As buildGuard: a project's own policy file names its project, the default workspace.
  const projectRoot =
    config.origin === 'project' ? dirname(config.file).replace(/\/\.toolgate$/, '') : undefined;
  const workspace = o.workspace !== undefined ? absolute(o.workspace, '--workspace') : (projectRoot ?? cwd);
  const ctx: Pick<CallContext, 'cwd' | 'workspace' | 'home' | 'env'> = { cwd, workspace, home, env };
  const approved: Access[] = [
    ...(o.approve ?? []).map((p) =>
      createAccess(p, 'read', ctx, { origin: 'cli:--approve', scope: 'subtree' }),
    ),
    ...(o.approveWrite ?? []).map((p) =>
      createAccess(p, 'write', ctx, { origin: 'cli:--approve-write', scope: 'subtree' }),
    ),
  ];
  const box = sandbox({ policy, mode: 'always', readOnly: sandboxReadOnlyDirs(env) });
  // The policy's network through the proxy: the proxy will listen here, started by the run (execProxied).
  let socketPath: string | undefined;
  let argv: string[];
  try {
    socketPath = box.network === 'proxy' ? newProxySocketPath() : undefined;
    argv = [...box.prefix(ctx, approved, socketPath ? { network: { socket: socketPath } } : {}), ...command];
  } catch (error) {
    if (!(error instanceof SandboxCompileError)) throw error;
    return {
      exitCode: SANDBOX_FAILED,
      stdout: '',
      stderr: `toolgate run: the policy cannot be compiled to a sandbox: ${error.message}\n`,
    };
  }
  if (o.print) return { exitCode: 0, stdout: `${shellJoin(argv)}\n`, stderr: '' };
  const wallTimeMs = limitsOf(policy)?.wallTimeMs;
  if (socketPath !== undefined)
    return {
      argv,
      ...(wallTimeMs !== undefined ? { wallTimeMs } : {}),
      proxied: { argv, wallTimeMs, socketPath, policy, ctx, audit: o.audit, approvals: o.approvals },
    };
  return wallTimeMs === undefined ? { argv } : { argv, wallTimeMs };
}
