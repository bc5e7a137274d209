import { isAbsolute, resolve } from 'node:path';
import { limitsOf } from '@toolgate/sandbox';
import { loadConfig } from '../config/loadConfig.js';
import { UsageError } from '../exitCodes.js';
import { execProxied } from '../run/execProxied.js';

export interface SandboxExecOptions {
  proxySocket: string;
  dialect?: string;
  policy?: string;
  agent?: string;
  overlay?: string[];
  workspace?: string;
  audit?: string;
  approvals?: string;
}

function absolute(path: string, flag: string): string {
  if (path.trim() === '') throw new UsageError(`${flag} must not be empty`);
  return isAbsolute(path) ? resolve(path) : resolve(process.cwd(), path);
}

/**
 * `toolgate sandbox-exec --proxy-socket PATH [policy flags] -- bwrap …`: what a rewritten shell call starts
 * with when the policy's network goes through the sandbox's proxy (issue 26). The host (Claude Code's Bash,
 * a gateway's shell tool) runs the rewritten line after the check has returned, so the line itself must
 * start the proxy and keep it for as long as bubblewrap runs: this loads the same policy (the file the
 * guard was built from), starts the proxy on PATH (which the bubblewrap line binds into the sandbox; its
 * directory must not exist yet), runs the line, and stops the proxy when it ends.
 */
export async function sandboxExec(argv: string[], o: SandboxExecOptions): Promise<number> {
  if (argv.length === 0) throw new UsageError('sandbox-exec: give the bubblewrap command line after --');
  const socketPath = absolute(o.proxySocket, '--proxy-socket');
  // The line must be one made for this socket: it binds it into the sandbox (and nothing else is run).
  const bound = argv.some(
    (a, i) => a === '--bind' && argv[i + 1] === socketPath && argv[i + 2] === socketPath,
  );
  if (!bound)
    throw new UsageError(
      `sandbox-exec: the command line does not bind the proxy socket ${socketPath} into a sandbox`,
    );
  const env = process.env;
  const home = env.HOME;
  if (!home || !isAbsolute(home))
    throw new UsageError(`HOME must be set to an absolute path, got ${JSON.stringify(home)}`);
  const cwd = process.cwd();
  const config = await loadConfig({
    ...(o.policy !== undefined ? { policy: absolute(o.policy, '--policy') } : {}),
    ...(o.dialect !== undefined ? { dialect: o.dialect } : {}),
    discoverFrom: cwd,
    env,
    ...(o.agent !== undefined ? { agent: o.agent } : {}),
    ...(o.overlay !== undefined ? { overlays: o.overlay.map((f) => absolute(f, '--overlay')) } : {}),
  });
  const workspace = o.workspace !== undefined ? absolute(o.workspace, '--workspace') : cwd;
  return execProxied({
    argv,
    wallTimeMs: limitsOf(config.policy)?.wallTimeMs,
    socketPath,
    policy: config.policy,
    ctx: { cwd, workspace, home, env },
    audit: o.audit,
    approvals: o.approvals,
  });
}
