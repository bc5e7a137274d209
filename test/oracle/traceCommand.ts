import { spawn } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { resolveKernelPath } from './resolveKernelPath.js';
import { parseStraceLine, type SyscallLine } from './straceLine.js';
import {
  chdirTarget,
  childPid,
  fdcwdOf,
  type KernelOp,
  listedDirectory,
  syscallEffects,
} from './syscallEffects.js';

export type Shell = 'bash' | 'dash';

/** One path operation the kernel performed for the command, resolved to the path it really touched. */
export interface KernelAccess {
  op: KernelOp;
  /** The real path touched (symlinks followed as the syscall does). */
  path: string;
  /** The path as the process named it, joined onto its base directory. */
  named: string;
  syscall: string;
  /** For the source of a rename: the real path it was renamed onto (an atomic-replace temp file). */
  renamedTo?: string;
}

export interface TraceResult {
  accesses: KernelAccess[];
  exitCode: number | null;
  timedOut: boolean;
  stderr: string;
}

export interface TraceOptions {
  shell: Shell;
  command: string;
  cwd: string;
  env: Record<string, string>;
  /** Directory for strace's per-process logs; must lie outside the scratch tree. */
  logDir: string;
  timeoutMs: number;
}

// -ff: one log per process, so no line is split into `<unfinished …>`/`resumed`; -y: the kernel's path for
// every descriptor (AT_FDCWD included), so relative *at calls resolve without replaying the cwd;
// --seccomp-bpf: only the traced syscalls stop the tracee (measured here: ~20% less CPU per run).
const STRACE_ARGS = [
  '-ff',
  '-qq',
  '-y',
  '--seccomp-bpf',
  '-s',
  '65535',
  '-e',
  'trace=%file,clone,clone3,fork,vfork,fchdir,getdents,getdents64',
];

/**
 * Runs `<shell> -c command` under `strace -f` in its own process group, killed (the whole group) after the
 * timeout, with stdin at /dev/null, and returns every file operation the kernel completed.
 */
export function traceCommand(opts: TraceOptions): Promise<TraceResult> {
  rmSync(opts.logDir, { recursive: true, force: true });
  mkdirSync(opts.logDir, { recursive: true });
  const base = join(opts.logDir, 't');
  return new Promise((resolve, reject) => {
    const child = spawn('strace', [...STRACE_ARGS, '-o', base, '--', opts.shell, '-c', opts.command], {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    let stderr = '';
    let timedOut = false;
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < 4000) stderr += d.toString();
    });
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, opts.timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      // A tracee that outlived strace (detached on its death) must not outlive the test either.
      killGroup(child.pid);
      try {
        resolve({ accesses: readLogs(opts.logDir, opts.cwd), exitCode: code, timedOut, stderr });
      } catch (err) {
        reject(err);
      }
    });
  });
}

function isDirectory(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is already gone.
  }
}

/**
 * Reads every per-process log. Each process starts in the cwd its parent had when it forked (found by
 * walking from the root process through clone results); `AT_FDCWD<…>` and chdir keep it current.
 */
function readLogs(dir: string, rootCwd: string): KernelAccess[] {
  const logs = new Map<number, SyscallLine[]>();
  for (const f of readdirSync(dir)) {
    const pid = Number.parseInt(f.slice(f.lastIndexOf('.') + 1), 10);
    const lines = readFileSync(join(dir, f), 'utf8').split('\n');
    logs.set(
      pid,
      lines.map(parseStraceLine).filter((l): l is SyscallLine => l !== null),
    );
  }
  const children = new Set<number>();
  for (const lines of logs.values())
    for (const l of lines) {
      const c = childPid(l);
      if (c !== null) children.add(c);
    }
  const out: KernelAccess[] = [];
  const visit = (pid: number, startCwd: string) => {
    let cwd = startCwd;
    for (const line of logs.get(pid) ?? []) {
      cwd = fdcwdOf(line) ?? cwd;
      const effects = syscallEffects(line, cwd).map((e) => {
        const path = e.real ?? resolveKernelPath(e.named, e.follow);
        // A read-only open of a directory without O_DIRECTORY (df, fsync of a dir) reads nothing either.
        const op = e.op === 'read' && line.name.startsWith('open') && isDirectory(path) ? 'stat' : e.op;
        return { op, path, named: e.named, syscall: line.name };
      });
      const listed = listedDirectory(line);
      if (listed !== null) effects.push({ op: 'list', path: listed, named: listed, syscall: line.name });
      const [from, to] = effects;
      if (line.name.startsWith('rename') && from && to) out.push({ ...from, renamedTo: to.path }, to);
      else out.push(...effects);
      const dir = chdirTarget(line, cwd);
      if (dir !== null) cwd = resolveKernelPath(dir, true);
      const c = childPid(line);
      if (c !== null) visit(c, cwd);
    }
  };
  for (const pid of logs.keys()) if (!children.has(pid)) visit(pid, rootCwd);
  return out;
}
