import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The built binary, as users run it (the root `test` script builds first).
const bin = fileURLToPath(new URL('../bin/toolgate.cjs', import.meta.url));
const run = (...args: string[]) =>
  spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 20_000 });

describe('toolgate CLI basics', () => {
  it('--help lists the commands and exits 0', () => {
    const r = run('--help');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/Usage: toolgate/);
    expect(r.stdout).toMatch(/demo/);
  });

  it('--version prints the package version and exits 0', () => {
    const r = run('--version');
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('an unknown command or option is a usage error: exit 2 with a clear message', () => {
    const r = run('frobnicate');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/unknown command 'frobnicate'/);
    const o = run('--frob');
    expect(o.status).toBe(2);
    expect(o.stderr).toMatch(/unknown option/);
  });

  it('no command at all is a usage error (exit 2), not a silent success', () => {
    const r = run();
    expect(r.status).toBe(2);
    expect(r.stdout + r.stderr).toMatch(/Usage: toolgate/);
  });
});
