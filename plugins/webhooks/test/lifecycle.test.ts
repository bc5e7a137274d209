import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/guard.js';
import { freePort, startReceiver } from './helpers/receiver.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('process lifecycle', () => {
  it("never keeps the host process alive: retry timers and keep-alive sockets are unref'd", async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const down = `http://127.0.0.1:${await freePort()}/hook`;
    const script = fileURLToPath(new URL('./helpers/exitChild.ts', import.meta.url));
    const started = Date.now();
    const child = spawn(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', script, tmp.dir, receiver.url, down],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve(-1);
      }, 15_000);
      child.once('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    expect(err).toBe('');
    expect(code).toBe(0);
    // The keep-alive socket to the receiver stays open on the receiver's side; the child left anyway,
    // long before the 2 s request timeout or the 4 s keep-alive timeout could have let it go.
    expect(Date.now() - started).toBeLessThan(4_000);
    // An in-flight request is not cut short by the exit: the event reached the receiver first.
    expect(out).toContain('delivered');
    expect(receiver.received).toHaveLength(1);
  });
});
