// Packs every publishable package the way a release does (`pnpm pack` rewrites workspace: ranges) and checks
// each tarball with are-the-types-wrong (types resolve for require and import, in node10, node16 and bundler
// resolution) and publint (exports, files, fields). Exits 1 on any problem. `pnpm check:packages`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (name) => join(root, 'node_modules', '.bin', name);
const dirs = ['packages', 'plugins'].flatMap((d) => readdirSync(join(root, d)).map((p) => join(root, d, p)));
const out = mkdtempSync(join(tmpdir(), 'toolgate-packs-'));
let failed = 0;
try {
  for (const dir of dirs) {
    execFileSync('pnpm', ['pack', '--pack-destination', out], { cwd: dir, stdio: 'ignore' });
  }
  for (const tarball of readdirSync(out).filter((f) => f.endsWith('.tgz'))) {
    const path = join(out, tarball);
    const unpacked = join(out, tarball.slice(0, -4));
    mkdirSync(unpacked);
    execFileSync('tar', ['xzf', path, '-C', unpacked]);
    for (const [tool, args] of [
      ['attw', [path, '--format', 'ascii']],
      ['publint', [join(unpacked, 'package'), '--strict']],
    ]) {
      try {
        execFileSync(bin(tool), args, { stdio: 'pipe', encoding: 'utf8' });
        console.log(`ok   ${tool} ${tarball}`);
      } catch (error) {
        failed++;
        console.log(`FAIL ${tool} ${tarball}\n${error.stdout ?? ''}${error.stderr ?? ''}`);
      }
    }
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
process.exitCode = failed === 0 ? 0 : 1;
