// Compiles the network bridge (native/bridge.c) into dist/native/toolgate-bridge-<platform>-<arch>, run by
// `build` after tsc. Statically linked where the C library allows it (no loader, no libraries to map: it
// starts in ≈ 0.5 ms inside a sandbox), dynamically otherwise. Without a C compiler, or off Linux, nothing is
// built and the sandbox uses the perl bridge (src/network/bridge.ts), which behaves the same, only slower to
// start: a note says so, the build goes on.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const pkg = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
const out = join(pkg, 'dist', 'native');
const file = join(out, `toolgate-bridge-${process.platform}-${process.arch}`);
const source = join(pkg, 'native', 'bridge.c');

// `--if-missing`: the root `pnpm test` runs it after the (cached) build — a build cached on a machine that had
// no compiler then would otherwise keep the package without its bridge after one was installed.
if (process.argv.includes('--if-missing') && existsSync(file)) process.exit(0);
rmSync(file, { force: true });
if (process.platform !== 'linux') process.exit(0);
mkdirSync(out, { recursive: true });
const cc = process.env.CC || 'cc';
const base = ['-O2', '-Wall', '-Wextra', '-o', file, source];
for (const flags of [['-static'], []]) {
  const r = spawnSync(cc, [...flags, ...base], { encoding: 'utf8' });
  if (r.status === 0) {
    chmodSync(file, 0o755);
    process.exit(0);
  }
  if (r.error) break; // no compiler at all
  if (flags.length === 0) process.stderr.write(r.stderr);
}
process.stderr.write(
  `@toolgate/sandbox: no C compiler (${cc}) could build native/bridge.c; the sandbox's network bridge will be the perl one (slower to start, same behaviour)\n`,
);
