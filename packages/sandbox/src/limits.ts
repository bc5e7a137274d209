import { existsSync, lstatSync } from 'node:fs';
import type { CompiledPolicy } from '@toolgate/folder-rules';
import type { MountPlan } from './mountPlan.js';
import { SandboxCompileError } from './sandboxError.js';

// Limits of a sandboxed run (issue 23): the policy's `limits: { processes, memory, wallTime, tmpSize }`,
// checked and normalised by folder-rules (src/limits.ts), enforced here with what a Linux machine offers
// without privileges:
//
// - processes: RLIMIT_NPROC, set by prlimit(1) *inside* the sandbox, after bubblewrap made its user
//   namespace. RLIMIT_NPROC counts the tasks (processes and threads) of a uid; since Linux 5.14 the count is
//   kept per user namespace (ucounts), so set inside the sandbox's own namespace it counts the sandbox's
//   tasks only — not the user's other processes (set before bubblewrap it would: the limit is also recorded
//   on the namespace as its ceiling against the user's total). It applies even to a uid 0 inside the
//   sandbox (no capabilities there, and not the initial namespace's root). Before 5.14 the kernel counted
//   the uid's processes on the whole machine.
// - memory: RLIMIT_DATA of each process (its heap and private anonymous mappings), also by prlimit. Not
//   RLIMIT_AS: runtimes reserve address space they never use (a JVM reserves 1 GiB of class space and a
//   quarter of RAM for its heap; measured: `java -version` fails under a 2 GiB RLIMIT_AS and starts under
//   a 2 GiB RLIMIT_DATA), and an allocation past the limit fails the same way under both (MemoryError,
//   "JavaScript heap out of memory", malloc NULL). Per process: N processes may use N times as much.
// - wallTime: timeout(1) inside the sandbox (TERM at the deadline, KILL 5 s later) for every host that runs
//   the rewritten command; `toolgate run` also keeps its own deadline outside the sandbox and kills
//   bubblewrap (the sandbox's init dies with it) should the inner timer have been stopped (the command can
//   signal a process of its own uid in its namespace, SIGSTOP included).
// - tmpSize: where the policy lets the sandbox write /tmp, a private tmpfs of that size is mounted on /tmp
//   (bubblewrap's --size, 0.7 and later): a write past it fails with ENOSPC, and nothing written there
//   reaches the host's shared /tmp. Paths the policy binds beneath /tmp (a workspace under /tmp) are bound
//   on top of it as before, and are not bounded by it. /dev/shm gets a tmpfs of the same size (bubblewrap's
//   own /dev is writable in every sandbox; /dev itself stays so, unsized).
//
// A cgroup (memory.max and pids.max for the whole run) would bound the sum rather than each process; it
// needs a delegated cgroup v2 subtree (systemd's user slices), which toolgate does not assume.

/** What a sandboxed run may use (see folder-rules' SandboxLimits, from the policy's `limits:`). */
export interface SandboxLimits {
  processes?: number;
  memoryBytes?: number;
  wallTimeMs?: number;
  tmpSizeBytes?: number;
}

/** The exit code of `toolgate run` when the wall-time limit ended the command (as timeout(1)'s). */
export const WALL_TIME_EXIT = 124;
/** After the deadline's SIGTERM, the command has this long before SIGKILL (ms). */
export const KILL_AFTER_MS = 5_000;

const FIELDS = ['processes', 'memoryBytes', 'wallTimeMs', 'tmpSizeBytes'] as const;

/** The policy's limits (native dialect; undefined when it sets none). */
export function limitsOf(policy: CompiledPolicy): SandboxLimits | undefined {
  const raw = policy.extras.limits as Record<string, unknown> | undefined;
  if (raw === null || typeof raw !== 'object') return undefined;
  const out: SandboxLimits = {};
  for (const key of FIELDS) {
    const v = raw[key];
    if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) out[key] = v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Where a helper program lives (it must be visible inside the sandbox: the system floor is). */
function helper(name: string): string {
  for (const dir of ['/usr/bin', '/bin', '/usr/sbin', '/sbin']) {
    const file = `${dir}/${name}`;
    if (existsSync(file)) return file;
  }
  throw new SandboxCompileError(
    `the policy sets limits, and ${name} (${name === 'prlimit' ? 'util-linux' : 'coreutils'}) is not installed to enforce them`,
  );
}

/**
 * The arguments that size /tmp and /dev/shm, and the index in `plan.ops` before which they go (after the
 * mounts of /tmp and its ancestors, before any mount beneath it); undefined without tmpSize. /tmp is mounted
 * only where the policy lets the sandbox write it (elsewhere nothing can be written there anyway); /dev/shm
 * always: bubblewrap's /dev is a tmpfs of its own whose shm directory any run could fill (up to half the
 * RAM, the kernel's default size) whatever the policy says.
 */
export function tmpMount(
  plan: MountPlan,
  limits: SandboxLimits | undefined,
): { before: number; args: string[] } | undefined {
  if (limits?.tmpSizeBytes === undefined) return undefined;
  const size = String(limits.tmpSizeBytes);
  const args = ['--size', size, '--perms', '1777', '--tmpfs', '/dev/shm'];
  let tmpDir = false;
  try {
    tmpDir = lstatSync('/tmp').isDirectory(); // a link: the mounts are on its target
  } catch {
    /* no /tmp */
  }
  let writable = plan.base === 'root' && plan.writableRoot;
  let before = plan.ops.length;
  plan.ops.forEach((op, i) => {
    if (op.path === '/' || op.path === '/tmp') writable = op.kind === 'rw';
    else if (op.path.startsWith('/tmp/') && before === plan.ops.length) before = i;
  });
  if (tmpDir && writable) args.push('--size', size, '--perms', '1777', '--tmpfs', '/tmp');
  return { before, args };
}

/**
 * What runs the command inside the sandbox under the limits: `prlimit --nproc --data -- timeout … --`,
 * placed after bubblewrap's `--` and before the command; empty without limits.
 */
export function limitCommand(limits: SandboxLimits | undefined): string[] {
  if (limits === undefined) return [];
  const out: string[] = [];
  const { processes, memoryBytes, wallTimeMs } = limits;
  if (processes !== undefined || memoryBytes !== undefined) {
    out.push(helper('prlimit'));
    if (processes !== undefined) out.push(`--nproc=${processes}:${processes}`);
    if (memoryBytes !== undefined) out.push(`--data=${memoryBytes}:${memoryBytes}`);
    out.push('--');
  }
  if (wallTimeMs !== undefined)
    // --verbose: "timeout: sending signal TERM to command …" on stderr tells whoever reads the output why.
    out.push(
      helper('timeout'),
      '--verbose',
      `--kill-after=${KILL_AFTER_MS / 1000}s`,
      `${wallTimeMs / 1000}s`,
    );
  return out;
}

/** A limit as the policy would write it, for messages: `10m`, `2GiB`. */
export function formatLimit(key: keyof SandboxLimits, value: number): string {
  if (key === 'processes') return String(value);
  if (key === 'wallTimeMs') {
    for (const [unit, ms] of [
      ['h', 3_600_000],
      ['m', 60_000],
      ['s', 1000],
    ] as const)
      if (value % ms === 0) return `${value / ms}${unit}`;
    return `${value}ms`;
  }
  for (const [unit, bytes] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const)
    if (value % bytes === 0) return `${value / bytes}${unit}`;
  return `${value}B`;
}

/** The limits in force, in one line: `processes 256, memory 2GiB, wallTime 10m, tmpSize 512MiB`. */
export function describeLimits(limits: SandboxLimits): string {
  const names: Record<keyof SandboxLimits, string> = {
    processes: 'processes',
    memoryBytes: 'memory',
    wallTimeMs: 'wallTime',
    tmpSizeBytes: 'tmpSize',
  };
  return FIELDS.filter((k) => limits[k] !== undefined)
    .map((k) => `${names[k]} ${formatLimit(k, limits[k]!)}`)
    .join(', ');
}
