import { isAbsolute, resolve } from 'node:path';
import type { Access, CallContext } from '@toolgate/core';
import { createAccess } from '@toolgate/core';
import { runSandboxed, SandboxCompileError, sandbox, shellJoin } from '@toolgate/sandbox';
import { loadConfig } from '../config/loadConfig.js';
import { sandboxReadOnlyDirs } from '../config/policyCache.js';
import { UsageError } from '../exitCodes.js';
import { writeOut } from '../hook/writeOut.js';

export interface RunCommandOptions {
  dialect: string;
  policy: string;
  agent?: string;
  overlay?: string[];
  cwd?: string;
  workspace?: string;
  approve?: string[];
  approveWrite?: string[];
  print?: boolean;
}

/** The sandbox could not start (bubblewrap missing, no user namespaces, policy not compilable): like env(1)'s 125. */
export const SANDBOX_FAILED = 125;

function absolute(dir: string, flag: string): string {
  if (dir.trim() === '') throw new UsageError(`${flag} must not be empty`);
  return isAbsolute(dir) ? resolve(dir) : resolve(process.cwd(), dir);
}

/**
 * `toolgate run -- CMD…`: compiles the policy into a bubblewrap sandbox and runs the command in it with this
 * process's cwd (or --cwd), environment and stdio. Resolves with the command's exit code; a command ended
 * by a signal ends this process by the same signal. The sandbox never degrades: when it cannot start, the
 * command does not run (exit 125, the reason on stderr).
 *
 * The policy comes from the on-disk cache of compiled policies when its files are unchanged (`loadConfig`);
 * the mounts are compiled afresh on every run (the glob walk sees what exists now).
 */
export async function runSandboxCommand(command: string[], o: RunCommandOptions): Promise<number> {
  if (command.length === 0) throw new UsageError('run: give the command after --');
  const env = process.env;
  const home = env.HOME;
  if (!home || !isAbsolute(home))
    throw new UsageError(`HOME must be set to an absolute path, got ${JSON.stringify(home)}`);
  const cwd = absolute(o.cwd ?? process.cwd(), '--cwd');
  const workspace = o.workspace === undefined ? cwd : absolute(o.workspace, '--workspace');
  const { policy } = await loadConfig({
    policy: absolute(o.policy, '--policy'),
    dialect: o.dialect,
    discoverFrom: cwd,
    env,
    ...(o.agent !== undefined ? { agent: o.agent } : {}),
    ...(o.overlay !== undefined ? { overlays: o.overlay.map((f) => absolute(f, '--overlay')) } : {}),
  });
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
  let argv: string[];
  try {
    argv = [...box.prefix(ctx, approved), ...command];
  } catch (error) {
    if (!(error instanceof SandboxCompileError)) throw error;
    writeOut(2, `toolgate run: the policy cannot be compiled to a sandbox: ${error.message}\n`);
    return SANDBOX_FAILED;
  }
  if (o.print) {
    writeOut(1, `${shellJoin(argv)}\n`);
    return 0;
  }
  // No probe first (it cost a second bubblewrap start): bubblewrap itself refuses to run the command outside
  // the sandbox, and runSandboxed tells its refusal from the command's own exit.
  const [bwrap, ...args] = argv;
  const exit = await runSandboxed(bwrap as string, args);
  if (!exit.ran && !exit.signal) {
    writeOut(2, `toolgate run: the command did not run: ${exit.reason}\n`);
    return SANDBOX_FAILED;
  }
  if (exit.signal) {
    // End the way the command ended, so a supervisor sees the signal, not a number.
    process.removeAllListeners(exit.signal);
    process.kill(process.pid, exit.signal);
    await new Promise((r) => setTimeout(r, 1000));
    return 128;
  }
  return exit.code ?? 1;
}
