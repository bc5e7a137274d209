import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Issue 15's start-up goal: `toolgate hook claude-code` answers a Read, and a Bash `git status`, in at most
// 1.5× the time of `node -e 0` on the same machine. Both run as whole processes (what an assistant pays per
// tool call), interleaved round by round so machine load hits both alike; medians are compared. The project
// is real: a git repository with a `toolgate init` policy (discovered, no flags), the hook installed the
// way `toolgate install` writes it, the compiled-policy cache warm (as it is from the second call on).
const BIN = fileURLToPath(new URL('../../packages/cli/bin/toolgate.cjs', import.meta.url));

/**
 * CPU time (user + system, ms) of this process's waited-for children so far, from /proc (Linux; undefined
 * elsewhere). Wall time on a shared machine grows with everyone else's load; CPU time much less so, so the
 * table shows both.
 */
function childrenCpuMs(): number | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state): cutime and cstime are fields 16 and 17, in clock ticks (USER_HZ = 100)
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export default async function hookStartup(
  rounds = Number(process.env.HOOK_BENCH_ROUNDS ?? 25),
): Promise<void> {
  const root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-hook-bench-')));
  try {
    const project = join(root, 'project');
    const home = join(root, 'home');
    mkdirSync(join(project, 'src'), { recursive: true });
    mkdirSync(home);
    writeFileSync(join(project, 'src', 'a.ts'), 'export {};\n');
    writeFileSync(join(project, 'package.json'), '{"name":"bench"}\n');
    execFileSync('git', ['init', '-q', project]);
    const env = { PATH: process.env.PATH, HOME: home, CLAUDE_PROJECT_DIR: project };
    execFileSync(process.execPath, [BIN, 'init', '--preset', 'standard'], {
      cwd: project,
      env,
      stdio: 'ignore',
    });
    const event = (tool_name: string, tool_input: Record<string, unknown>) =>
      JSON.stringify({
        session_id: 'bench',
        transcript_path: join(root, 't.jsonl'),
        cwd: project,
        hook_event_name: 'PreToolUse',
        tool_name,
        tool_input,
      });
    // The hook as installed: a warm hook server answers after the first call (TOOLGATE_HOOK_TRACE records
    // who answered each call, checked below). The same calls answered in their own process
    // (TOOLGATE_HOOK_SERVER=off) are shown for reference.
    const trace = join(root, 'trace.log');
    const served = { ...env, TOOLGATE_HOOK_TRACE: trace };
    const inProcess = { ...env, TOOLGATE_HOOK_SERVER: 'off' };
    const read = event('Read', { file_path: join(project, 'src', 'a.ts') });
    const bash = event('Bash', { command: 'git status' });
    const hookArgs = [BIN, 'hook', 'claude-code'];
    const cases: Record<string, { args: string[]; input: string; env: NodeJS.ProcessEnv; goal: boolean }> = {
      'node -e 0': { args: ['-e', '0'], input: '', env, goal: false },
      'hook Read': { args: hookArgs, input: read, env: served, goal: true },
      'hook Bash git status': { args: hookArgs, input: bash, env: served, goal: true },
      'hook Read, in process (server off)': { args: hookArgs, input: read, env: inProcess, goal: false },
      'hook Bash git status, in process (server off)': {
        args: hookArgs,
        input: bash,
        env: inProcess,
        goal: false,
      },
    };
    const cpu: Record<string, number> = Object.fromEntries(Object.keys(cases).map((k) => [k, 0]));
    const run = (c: { args: string[]; input: string; env: NodeJS.ProcessEnv }, name?: string) => {
      const cpuBefore = childrenCpuMs();
      const t = performance.now();
      const r = spawnSync(process.execPath, c.args, {
        cwd: project,
        env: c.env,
        input: c.input,
        encoding: 'utf8',
      });
      const ms = performance.now() - t;
      const cpuAfter = childrenCpuMs();
      if (name !== undefined && cpuBefore !== undefined && cpuAfter !== undefined)
        cpu[name]! += cpuAfter - cpuBefore;
      // allowed calls give no decision: any output or exit code would mean the benchmark measures an error
      if (r.status !== 0 || r.stdout !== '' || r.stderr !== '')
        throw new Error(`${c.args.join(' ')} answered ${r.status} ${r.stdout}${r.stderr}`);
      return ms;
    };
    for (const c of Object.values(cases)) run(c); // warm: OS file cache, compiled-policy cache, code caches
    // The first served-mode call started the server: wait until it runs, then warm it.
    const spoolRoot = join(home, '.cache', 'toolgate');
    const started = Date.now();
    while (Date.now() - started < 10_000) {
      const spool = readdirSync(spoolRoot).find((n) => n.startsWith('hookd-'));
      if (spool && existsSync(join(spoolRoot, spool, 'server.pid'))) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (const c of Object.values(cases)) run(c);
    rmSync(trace, { force: true });
    const times: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
    for (let i = 0; i < rounds; i++)
      for (const [name, c] of Object.entries(cases)) times[name]!.push(run(c, name));
    const base = median(times['node -e 0']!);
    const cpuBase = cpu['node -e 0']! / rounds;
    console.log(`\n## hook start-up (${rounds} interleaved rounds, whole processes, median wall time)`);
    console.table(
      Object.entries(times).map(([name, xs]) => ({
        case: name,
        'median ms': Number(median(xs).toFixed(1)),
        'min ms': Number(Math.min(...xs).toFixed(1)),
        'ratio to node -e 0': Number((median(xs) / base).toFixed(2)),
        goal: cases[name]!.goal ? '≤ 1.5' : '',
        'cpu ms (user+sys)': cpuBase > 0 ? Number((cpu[name]! / rounds).toFixed(1)) : 'n/a',
        'cpu ratio': cpuBase > 0 ? Number((cpu[name]! / rounds / cpuBase).toFixed(2)) : 'n/a',
      })),
    );
    const lines = readFileSync(trace, 'utf8').trim().split('\n');
    const byServer = lines.filter((l) => / served by /.test(l)).length;
    console.log(
      `answered by the hook server: ${byServer} of ${lines.length} calls of the goal rows (cpu columns count this process's children only: the server's work is not in them)`,
    );
  } finally {
    // Removing the spool (in the fake HOME) ends the server within two seconds.
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await hookStartup();
