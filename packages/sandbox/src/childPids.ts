import { readdirSync, readFileSync } from 'node:fs';

/**
 * The pids whose parent is `pid`, read from /proc (`/proc/PID/task/PID/children` needs CONFIG_PROC_CHILDREN,
 * which not every kernel has). Used at signal time only: a few hundred small reads.
 */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // pid (comm) state ppid …: comm may contain spaces and parentheses, so parse after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(name));
    } catch {
      /* the process exited meanwhile */
    }
  }
  return out;
}
