import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CallContext } from '@toolgate/core';
import type { CompiledPolicy } from '@toolgate/folder-rules';
import { startNetworkProxy } from '@toolgate/sandbox';
import { writeOut } from '../hook/writeOut.js';
import { execSandboxed, SANDBOX_FAILED } from './execSandboxed.js';
import { networkTrail } from './networkTrail.js';
import { sandboxUpstream } from './sandboxUpstream.js';

export interface ProxiedRun {
  /** bubblewrap's command line, naming `socketPath` (its `--bind` and the bridge). */
  argv: readonly string[];
  wallTimeMs?: number | undefined;
  socketPath: string;
  policy: CompiledPolicy;
  ctx: Pick<CallContext, 'cwd' | 'workspace' | 'home' | 'env'>;
  audit?: string | undefined;
  approvals?: string | undefined;
  /** Test/development only: names the proxy maps to addresses (`startNetworkProxy`'s `hosts`). */
  hosts?: Record<string, string> | undefined;
}

/**
 * Runs a sandbox whose network goes through the filtering proxy: the proxy starts on `socketPath` first (its
 * directory created 0700, refused if it exists), bubblewrap runs, and the proxy stops when it has ended —
 * the proxy lives exactly as long as the run. Every connection goes to the audit trail; prompt rules ask the
 * approvals strategy; the machine's own HTTP proxy (HTTPS_PROXY…) is gone through when the policy allows its
 * host (./sandboxUpstream.ts). Resolves with the command's exit code (execSandboxed's).
 */
export async function execProxied(run: ProxiedRun): Promise<number> {
  const network = run.policy.network;
  if (network === undefined || network.unrestricted) {
    writeOut(
      2,
      "toolgate: the policy has no network section that needs the sandbox's proxy (any more): the command did not run\n",
    );
    return SANDBOX_FAILED;
  }
  const trail = await networkTrail({
    policy: run.policy,
    ctx: run.ctx,
    audit: run.audit,
    approvals: run.approvals,
  });
  const { upstream, warning } = sandboxUpstream(network, process.env);
  if (warning !== undefined) writeOut(2, `${warning}\n`);
  let proxy: Awaited<ReturnType<typeof startNetworkProxy>>;
  try {
    proxy = await startNetworkProxy({
      policy: network,
      socketPath: run.socketPath,
      ...(trail.onConnection ? { onConnection: trail.onConnection } : {}),
      ...(trail.onPrompt ? { onPrompt: trail.onPrompt } : {}),
      ...(run.hosts ? { hosts: run.hosts } : {}),
      ...(upstream ? { upstream } : {}),
    });
  } catch (error) {
    trail.close();
    writeOut(
      2,
      `toolgate: the sandbox's network proxy could not start on ${run.socketPath}: ${(error as Error).message}\n`,
    );
    return SANDBOX_FAILED;
  }
  // A command ended by a signal ends this process the same way (execSandboxed): the socket's directory goes too.
  const cleanup = () => rmSync(dirname(run.socketPath), { recursive: true, force: true });
  process.once('exit', cleanup);
  try {
    return await execSandboxed(run.argv, run.wallTimeMs);
  } finally {
    await proxy.close();
    trail.close();
    process.off('exit', cleanup);
  }
}
