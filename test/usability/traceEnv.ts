import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildWorkspaces } from './buildWorkspaces.js';

// Reality as the oracle for a corpus line: runs each command for real under `strace -f` in a fresh copy of
// workspace B and prints whether the root `.env` was opened, removed or renamed (a missing-file probe is not).
// `node --import tsx test/usability/traceEnv.ts 'git status' 'grep -r KEY .'`. Needs strace; commands really run.
const w = buildWorkspaces();
try {
  const b = w.contexts.B;
  for (const cmd of process.argv.slice(2)) {
    const ws = join(w.root, 'trace-ws');
    const log = join(w.root, 'trace.log');
    rmSync(ws, { recursive: true, force: true });
    cpSync(b.workspace, ws, { recursive: true, verbatimSymlinks: true });
    const trace = ['-f', '-qq', '-e', 'trace=openat,open,unlink,unlinkat,rename,renameat2', '-o', log];
    const r = spawnSync('strace', [...trace, 'bash', '-c', cmd], {
      cwd: ws,
      env: { ...b.env, PATH: process.env.PATH ?? '/usr/bin:/bin' },
      stdio: 'ignore',
    });
    const hits = readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => /["/]\.env"/.test(l) && !l.includes('ENOENT'))
      .map((l) => l.replace(/^\d+ +/, '').slice(0, 90));
    console.log(
      `${cmd}  (exit ${r.status}): .env ${hits.length ? `touched: ${hits.join(' ; ')}` : 'not touched'}`,
    );
  }
} finally {
  w.dispose();
}
