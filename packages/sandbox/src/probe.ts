import { lazyBuiltin, registerProcessCache } from '@toolgate/core';

// Loaded when a probe runs (not by `toolgate run`, which never probes: ~3.5 ms of its start).
const childProcess = lazyBuiltin<typeof import('node:child_process')>('node:child_process');

/** Whether bubblewrap can build a sandbox on this machine, and if not, why (for the fallback deny). */
export type Availability = { ok: true; bwrap: string } | { ok: false; reason: string };

const probed = new Map<string, Availability>();
registerProcessCache(() => probed.clear());

/**
 * Runs `bwrap` once with the namespaces every sandbox uses. Cached per process: whether the kernel allows
 * user namespaces and whether the binary exists are properties of the machine, not of a call (the hook
 * server, which serves calls with different PATHs, clears it per call: core's clearProcessCaches).
 */
export function probeSandbox(bwrap = 'bwrap'): Availability {
  const hit = probed.get(bwrap);
  if (hit) return hit;
  const r = childProcess().spawnSync(
    bwrap,
    [
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--unshare-all',
      '--share-net',
      '--unshare-user',
      '--disable-userns',
      '--cap-drop',
      'ALL',
      '--die-with-parent',
      '--new-session',
      '--',
      'true',
    ],
    { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let result: Availability;
  const code = (r.error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') result = { ok: false, reason: notInstalled(bwrap) };
  else if (r.error) result = { ok: false, reason: `${bwrap} could not run: ${r.error.message}` };
  else if (r.status !== 0)
    result = {
      ok: false,
      reason: `${bwrap} cannot create a sandbox here (user namespaces disabled?): ${(r.stderr ?? '').trim() || `exit ${r.status ?? r.signal}`}`,
    };
  else result = { ok: true, bwrap };
  probed.set(bwrap, result);
  return result;
}

/** The reason given when the bubblewrap binary cannot be found. */
export function notInstalled(bwrap: string): string {
  return `bubblewrap is not installed (${bwrap} not found; Debian/Ubuntu: apt-get install bubblewrap)`;
}
