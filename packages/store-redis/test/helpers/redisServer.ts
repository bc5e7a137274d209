import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
// Shared with the cross-package tests that need a real Redis (test/fleet, packages/cli/test/mcpFleet): one helper, imported by path.

/** A real redis-server of the test's own, on loopback, without persistence (never the system service). */
export interface TestRedis {
  readonly port: number;
  readonly url: string;
  /** SIGKILL, as a crashed or partitioned Redis: nothing is saved. */
  kill(): Promise<void>;
  /** Starts it again on the same port (empty: it had no persistence). */
  restart(): Promise<void>;
  /** SIGSTOP / SIGCONT: connections stay open and nothing answers, as in a network partition. */
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

function launch(port: number): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    // A missing redis-server is a failure (scripts/ensure-test-tools.sh installs it), never a skip.
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--protected-mode',
        'yes',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    const timer = setTimeout(
      () => reject(new Error(`redis-server did not start on ${port}: ${out}`)),
      10_000,
    );
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(
        new Error(`cannot run redis-server (scripts/ensure-test-tools.sh installs it): ${error.message}`),
      );
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}: ${out}`));
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Ready to accept connections')) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve(child);
      }
    });
  });
}

function exited(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  let child = await launch(port);
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    kill: () => exited(child, 'SIGKILL'),
    async restart() {
      await exited(child, 'SIGKILL');
      child = await launch(port);
    },
    stop: () => exited(child, 'SIGKILL'),
    pause: () => void child.kill('SIGSTOP'),
    resume: () => void child.kill('SIGCONT'),
  };
}
