import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { BIN } from './support/cli.js';

// `toolgate … | head -1`: the reader closes the pipe after one line and every later write fails with EPIPE.
// The CLI stops quietly (no "Unhandled 'error' event" stack), as cat and grep do.
it.each([
  ['demo', ['demo']],
  ['--help', ['--help']],
])('toolgate %s | head -1 prints one line and no stack', (_name, args) => {
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ');
  const r = spawnSync('sh', ['-c', `${quoted} | head -1`], { encoding: 'utf8', timeout: 60_000 });
  expect(r.stdout.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toBe('');
});
