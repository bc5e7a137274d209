import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bwrapArgs, runSandboxed } from '../src/index.js';

// Real bubblewrap: runSandboxed runs no probe first, so it must tell a sandbox that could not be set up (or a
// program that could not be executed in it) from a command that ran and failed — and in the first case the
// command must not have run at all.
let root: string;
let args: string[];

beforeAll(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-run-sandboxed-')));
  args = bwrapArgs({
    base: 'root',
    writableRoot: false,
    ops: [{ kind: 'rw', path: root, why: 'test' }],
    walked: 0,
    cwd: root,
  });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

// Both ways of starting bubblewrap (launch.ts): libuv's handles, which `toolgate run` uses, and
// node:child_process, which a Node without `process.binding` uses.
describe.each(['handles', 'child_process'] as const)('runSandboxed (via %s)', (via) => {
  it('reports the exit code of a command that ran, failing or not', async () => {
    expect(await runSandboxed('bwrap', [...args, 'sh', '-c', 'exit 7'], { via })).toEqual({
      ran: true,
      code: 7,
      signal: null,
    });
    expect(await runSandboxed('bwrap', [...args, 'true'], { via })).toEqual({
      ran: true,
      code: 0,
      signal: null,
    });
  });

  it('reports a command killed by a signal as that signal', async () => {
    expect(await runSandboxed('bwrap', [...args, 'sh', '-c', 'kill -TERM $$'], { via })).toEqual({
      ran: true,
      code: null,
      signal: 'SIGTERM',
    });
  });

  it('ran: false when bubblewrap cannot set the sandbox up, and nothing ran', async () => {
    const marker = join(root, 'ran');
    const broken = ['--ro-bind', join(root, 'does-not-exist'), '/mnt', ...args];
    const exit = await runSandboxed('bwrap', [...broken, 'sh', '-c', `echo ran > ${marker}`], { via });
    expect(exit.ran).toBe(false);
    expect(exit.reason).toMatch(/could not be set up or the command could not be executed/);
    expect(existsSync(marker)).toBe(false);
  });

  it('ran: false when the program cannot be executed inside', async () => {
    const exit = await runSandboxed('bwrap', [...args, join(root, 'no-such-program')], { via });
    expect(exit.ran).toBe(false);
  });

  it('ran: false, naming the package, when bubblewrap is not installed', async () => {
    const exit = await runSandboxed(join(root, 'no-bwrap'), [...args, 'true'], { via });
    expect(exit).toMatchObject({ ran: false, code: null, signal: null });
    expect(exit.reason).toMatch(/bubblewrap is not installed/);
  });
});
