import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** The built CLI: these tests run what users run (the root `test` script builds first). */
export const BIN = fileURLToPath(new URL('../../bin/toolgate.cjs', import.meta.url));

/** The real MCP filesystem server (a dev dependency of @toolgate/mcp), run with node. */
export const FILESYSTEM_SERVER = createRequire(new URL('../../../mcp/package.json', import.meta.url)).resolve(
  '@modelcontextprotocol/server-filesystem/dist/index.js',
);

export function spawnCli(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
}

export function exited(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

/**
 * Runs the CLI to its end in `cwd` with a minimal environment: PATH, the given HOME, no toolgate caches, and
 * `env` on top. Its exit code and output.
 */
export function runCli(
  args: string[],
  o: { cwd: string; home: string; env?: NodeJS.ProcessEnv; input?: string },
): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: o.cwd,
    ...(o.input !== undefined ? { input: o.input } : {}),
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: o.home, TOOLGATE_CACHE: 'off', ...o.env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
