import { existsSync, readlinkSync } from 'node:fs';
import { isSymlink } from './compileMounts.js';
import { limitCommand, type SandboxLimits, tmpMount } from './limits.js';
import { FLOOR, type MountPlan } from './mountPlan.js';
import { bridgeCommand, bridgeKind, nativeBridge, proxyEnv } from './network/bridge.js';

/**
 * The network a sandbox gets (./network/networkMode.ts): the host's (`shared`, the default), none but its own
 * loopback (`none`), or none plus the filtering proxy listening on `socket` outside, bridged in (`proxy`).
 */
export type SandboxNetwork =
  | { mode: 'shared'; hide?: string }
  | { mode: 'none'; hide?: string }
  | { mode: 'proxy'; socket: string; hide?: string };

/**
 * The bubblewrap arguments (without the program name) that build the sandbox of a plan, up to and
 * including `--` (and, after it, what runs the command: the network bridge, the limits). Namespaces: a new user,
 * mount, pid, ipc, uts and cgroup namespace, and a network namespace unless the policy leaves the network
 * unrestricted (`options.network`); no capabilities, no nested user namespaces (which could unmount the masks),
 * a new session (no TIOCSTI into the caller's terminal), and the sandbox dies with its parent.
 */
export function bwrapArgs(
  plan: MountPlan,
  options: { chdir?: boolean; limits?: SandboxLimits; network?: SandboxNetwork } = {},
): string[] {
  const network = options.network ?? { mode: 'shared' };
  const args: string[] = [];
  if (plan.base === 'root') args.push(plan.writableRoot ? '--bind' : '--ro-bind', '/', '/');
  else
    for (const dir of FLOOR) {
      if (isSymlink(dir)) args.push('--symlink', readlinkSync(dir), dir);
      else if (existsSync(dir)) args.push('--ro-bind', dir, dir);
    }
  args.push('--dev', '/dev', '--proc', '/proc');
  const remount: string[] = [];
  // The policy's limits (./limits.ts): a sized tmpfs on a writable /tmp, beneath the mounts of /tmp's
  // subtree; after `--`, what runs the command under the rlimits and the wall time.
  const tmp = tmpMount(plan, options.limits);
  for (const [i, op] of plan.ops.entries()) {
    if (i === tmp?.before) args.push(...tmp.args);
    if (op.kind === 'rw') args.push('--bind', op.path, op.path);
    else if (op.kind === 'ro') args.push('--ro-bind', op.path, op.path);
    else if (op.kind === 'mask-file') args.push('--ro-bind', '/dev/null', op.path);
    else {
      args.push('--tmpfs', op.path);
      remount.push(op.path);
    }
  }
  if (tmp?.before === plan.ops.length) args.push(...tmp.args);
  // Every proxy's socket directory hidden (`hide`: ./network/proxyDir.ts — another run's proxy may allow more),
  // then this run's socket bound back in at the same path: after the policy's mounts, before the remounts
  // that make the masks read-only.
  if (network.hide !== undefined) {
    args.push('--tmpfs', network.hide);
    remount.push(network.hide);
  }
  if (network.mode === 'proxy') args.push('--bind', network.socket, network.socket);
  // The compiled bridge, read-only at a fixed place in that tmpfs: visible whatever the policy hides (the
  // package may live under a directory the policy masks), never writable from inside.
  let bridgeInside: string | undefined;
  if (network.mode === 'proxy' && bridgeKind() === 'native') {
    const file = nativeBridge()!;
    bridgeInside = network.hide === undefined ? file : `${network.hide}/bridge`;
    if (bridgeInside !== file) args.push('--ro-bind', file, bridgeInside);
  }
  // Last: mounts beneath a masked directory (an approved file) need their mount point created in its tmpfs.
  for (const path of remount) args.push('--remount-ro', path);
  // Without --chdir bubblewrap keeps the directory it was started in: a rewritten call runs where the host
  // runs it (a tool's own working-directory argument included), as the original command would have.
  if (options.chdir !== false) args.push('--chdir', plan.cwd);
  args.push(
    '--unshare-all',
    ...(network.mode === 'shared' ? ['--share-net'] : []),
    ...(network.mode === 'proxy' ? Object.entries(proxyEnv()).flatMap(([k, v]) => ['--setenv', k, v]) : []),
    '--unshare-user',
    '--disable-userns',
    '--cap-drop',
    'ALL',
    '--die-with-parent',
    '--new-session',
    '--',
    ...(network.mode === 'proxy' ? bridgeCommand(network.socket, bridgeInside) : []),
    ...limitCommand(options.limits),
  );
  return args;
}
