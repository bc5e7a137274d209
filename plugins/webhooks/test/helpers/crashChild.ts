// Run as a real child process: queues violations for a receiver that is down, waits until the outbox has
// them on disk, says "ready", then waits to be killed with SIGKILL (no close(), no flush: a crash).
import { existsSync, readFileSync } from 'node:fs';
import { webhooks } from '../../src/index.js';
import { context, createGuard, workspacePolicy } from './guard.js';

const [dir, url, count] = process.argv.slice(2) as [string, string, string];
const plugin = webhooks({
  targets: [{ url }],
  outboxDir: dir,
  retry: { baseDelayMs: 50, maxDelayMs: 200, timeoutMs: 500, maxAttempts: 1000 },
  env: {},
});
const guard = createGuard({ plugins: [workspacePolicy(), plugin] });
const ctx = context(dir);
for (let i = 0; i < Number(count); i++)
  await guard.check({ tool: 'file_write', args: { path: `/etc/crash-${i}` } }, ctx);
const puts = () =>
  existsSync(plugin.outboxFile)
    ? readFileSync(plugin.outboxFile, 'utf8')
        .split('\n')
        .filter((l) => l.includes('"k":"put"')).length
    : 0;
const timer = setInterval(() => {
  if (puts() >= Number(count)) {
    clearInterval(timer);
    process.stdout.write('ready\n');
    setInterval(() => undefined, 1_000);
  }
}, 10);
