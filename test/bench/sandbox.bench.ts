import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Issue 16: start-up overhead of the OS sandbox (goal ≤ 30 ms added to `true`). Three numbers per run:
// plain `true`; the sandboxed command as a hook or the API hands it to the host (`bwrap … -- true`, the
// policy compiled once at decision time); and `toolgate run -- true`, which also starts Node, loads the
// policy and compiles it to mounts. Spawned for real, medians of RUNS runs.
const BIN = fileURLToPath(new URL('../../packages/cli/dist/bin.js', import.meta.url));
const RUNS = 30;

function median(ms: number[]): number {
  const s = [...ms].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function time(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): number {
  const samples: number[] = [];
  for (let i = 0; i < RUNS + 3; i++) {
    const t = performance.now();
    const r = spawnSync(cmd, args, { cwd, env, stdio: 'ignore' });
    const dt = performance.now() - t;
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status ?? r.signal}`);
    if (i >= 3) samples.push(dt); // the first runs warm the page cache
  }
  return median(samples);
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
    const env = { ...process.env, HOME: home };
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
    const plain = time('true', [], ws, env);
    const bwrap = time(argv[0]!, argv.slice(1), ws, env);
    const nodeOnly = time(process.execPath, ['-e', '0'], ws, env);
    const run = time(process.execPath, [BIN, 'run', '--policy', policy, '--', 'true'], ws, env);
    const rows = [
      { case: 'true', 'median ms': plain.toFixed(2), 'added ms': '' },
      {
        case: 'bwrap … -- true (hook / API rewrite)',
        'median ms': bwrap.toFixed(2),
        'added ms': (bwrap - plain).toFixed(2),
      },
      {
        case: 'node -e 0 (for reference)',
        'median ms': nodeOnly.toFixed(2),
        'added ms': (nodeOnly - plain).toFixed(2),
      },
      {
        case: 'toolgate run -- true',
        'median ms': run.toFixed(2),
        'added ms': (run - plain).toFixed(2),
      },
    ];
    console.log(`\n## sandbox start-up (${RUNS} runs each; 500-file workspace, **/.env walked at start)`);
    console.table(rows);
    console.log(
      `goal ≤ 30 ms added: the sandbox itself adds ${(bwrap - plain).toFixed(1)} ms (${bwrap - plain <= 30 ? 'met' : 'NOT met'}); toolgate run adds ${(run - plain).toFixed(1)} ms, of which Node's own start is ${(nodeOnly - plain).toFixed(1)} ms (${run - plain <= 30 ? 'met' : 'NOT met'})`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
