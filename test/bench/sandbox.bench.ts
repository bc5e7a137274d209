import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Issue 16: start-up overhead of the OS sandbox (goal ≤ 30 ms added to `true`). Two paths, each with the goal
// beside it:
//   - the path hooks, the API and the MCP gateway use: the policy is compiled to mounts at decision time and
//     the host runs `bwrap … -- true` (no Node at run time);
//   - `toolgate run -- true` as a command (bin/toolgate.cjs, what `toolgate` is): Node, then the plan — the
//     cached policy, the mounts compiled afresh (the glob walk) — made by the warm hook server with this
//     process's environment and cwd while this process loads the 7 KB exec bundle, then the same bwrap
//     started through libuv's handles. The first run of a session (no server yet) plans in its own process
//     and starts the server: that row is printed too (the server off).
// For reference: `node -e 0` (Node's own start, the floor of any Node command), `toolgate run --print` (all
// of it but bubblewrap: Node, bundle, policy, mounts) and `toolgate run` through the full ES-module CLI
// (commander and every command), the way it ran before it had a bundle.
// Every case runs as a whole process, interleaved round by round (the order rotating) so machine load hits
// all alike; medians and the interquartile range of ROUNDS rounds.
const CLI = fileURLToPath(new URL('../../packages/cli/', import.meta.url));
const BIN = join(CLI, 'bin', 'toolgate.cjs');
const ROUNDS = Number(process.env.SANDBOX_BENCH_ROUNDS ?? 30);
const WARMUP = 3;
const GOAL_MS = 30;

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

export default async function sandboxBench(): Promise<void> {
  const root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-bench-sandbox-')));
  try {
    const ws = join(root, 'ws');
    const home = join(root, 'home');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    for (let d = 0; d < 20; d++) {
      mkdirSync(join(ws, `pkg${d}`, 'src'), { recursive: true });
      for (let f = 0; f < 25; f++) writeFileSync(join(ws, `pkg${d}`, 'src', `f${f}.ts`), '');
    }
    writeFileSync(join(ws, 'pkg3', '.env'), 'x');
    const policy = join(root, 'policy.yaml');
    writeFileSync(
      policy,
      [
        'default: read',
        'rules:',
        '  - { pattern: "<workspace>/**", access: write }',
        '  - { pattern: "~/.ssh/**", access: deny }',
        '  - { pattern: "**/.env", access: deny }',
        '',
      ].join('\n'),
    );
    // The policy cache lives in the fake HOME (outside the workspace): warm from the first run on.
    // A minimal environment, as the hook bench uses: variables such as NODE_EXTRA_CA_CERTS (set on this
    // machine) cost every Node start ~35 ms, which is the environment's cost, not toolgate's.
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home };
    const printed = spawnSync(process.execPath, [BIN, 'run', '--policy', policy, '--print', '--', 'true'], {
      cwd: ws,
      env,
      encoding: 'utf8',
    });
    if (printed.status !== 0) throw new Error(`toolgate run --print failed: ${printed.stderr}`);
    const argv = spawnSync('/bin/bash', ['-c', `printf '%s\\0' ${printed.stdout.trim()}`], {
      encoding: 'utf8',
    })
      .stdout.split('\0')
      .filter(Boolean);
    const runArgs = ['run', '--policy', policy, '--', 'true'];
    const fullCli = `import(${JSON.stringify(join(CLI, 'dist', 'main.js'))}).then(async (m) => { process.exitCode = await m.main(${JSON.stringify(runArgs)}); })`;
    const cases: Array<{
      name: string;
      cmd: string;
      args: string[];
      goal: boolean;
      env?: Record<string, string>;
    }> = [
      { name: 'true', cmd: 'true', args: [], goal: false },
      { name: 'bwrap … -- true (hook / API / gateway)', cmd: argv[0]!, args: argv.slice(1), goal: true },
      { name: 'node -e 0 (reference: Node start)', cmd: process.execPath, args: ['-e', '0'], goal: false },
      {
        name: 'toolgate run --print -- true (all but bwrap)',
        cmd: process.execPath,
        args: [BIN, 'run', '--policy', policy, '--print', '--', 'true'],
        goal: false,
      },
      { name: 'toolgate run -- true', cmd: process.execPath, args: [BIN, ...runArgs], goal: true },
      {
        name: 'toolgate run -- true, no server (planned in process)',
        cmd: process.execPath,
        args: [BIN, ...runArgs],
        goal: false,
        env: { TOOLGATE_HOOK_SERVER: 'off' },
      },
      {
        name: 'toolgate run via the full ES-module CLI (reference)',
        cmd: process.execPath,
        args: ['--input-type=module', '-e', fullCli],
        goal: false,
      },
    ];
    const samples = cases.map(() => [] as number[]);
    for (let round = 0; round < WARMUP + ROUNDS; round++) {
      for (let k = 0; k < cases.length; k++) {
        const i = (k + round) % cases.length;
        const c = cases[i]!;
        const t = performance.now();
        const r = spawnSync(c.cmd, c.args, { cwd: ws, env: { ...env, ...c.env }, stdio: 'ignore' });
        const ms = performance.now() - t;
        if (r.status !== 0) throw new Error(`${c.name} exited ${r.status ?? r.signal}`);
        if (round >= WARMUP) samples[i]!.push(ms);
      }
    }
    const plain = quantile(samples[0]!, 0.5);
    const rows = cases.map((c, i) => {
      const s = samples[i]!;
      const added = quantile(s, 0.5) - plain;
      return {
        case: c.name,
        'median ms': quantile(s, 0.5).toFixed(1),
        'p25–p75 ms': `${quantile(s, 0.25).toFixed(1)}–${quantile(s, 0.75).toFixed(1)}`,
        'added ms': i === 0 ? '' : added.toFixed(1),
        [`goal ≤ ${GOAL_MS} ms added`]: c.goal ? (added <= GOAL_MS ? 'met' : 'NOT met') : '',
      };
    });
    console.log(
      `\n## sandbox start-up (${ROUNDS} interleaved rounds; 500-file workspace, **/.env walked at start, policy cache warm)`,
    );
    console.table(rows);
    // Who planned the goal row's runs: five more runs with the trace on (not timed: the trace is a write).
    const trace = join(root, 'trace.log');
    for (let i = 0; i < 5; i++)
      spawnSync(process.execPath, [BIN, ...runArgs], {
        cwd: ws,
        env: { ...env, TOOLGATE_HOOK_TRACE: trace },
        stdio: 'ignore',
      });
    const served = readFileSync(trace, 'utf8')
      .split('\n')
      .filter((l) => / run served by \d+$/.test(l));
    console.log(`toolgate run planned by the hook server: ${served.length} of 5 (trace)`);
    const added = (i: number) => (quantile(samples[i]!, 0.5) - plain).toFixed(1);
    console.log(
      `goal ≤ ${GOAL_MS} ms added — hook / API / gateway path (bwrap, argv computed at decision time): ${added(1)} ms; toolgate run: ${added(4)} ms, of which Node's own start is ${added(2)} ms; planned in process (first run of a session): ${added(5)} ms`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
