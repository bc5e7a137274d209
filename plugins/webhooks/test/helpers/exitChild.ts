// Run as a real child process: one event delivered over a keep-alive socket, one retrying against a closed
// port, then the script ends without close(). The process must exit on its own.
import { sampleEvent, webhooks } from '../../src/index.js';

const [dir, okUrl, downUrl] = process.argv.slice(2) as [string, string, string];
const plugin = webhooks({
  targets: [
    { url: okUrl, name: 'ok' },
    { url: downUrl, name: 'down' },
  ],
  outboxDir: dir,
  retry: { baseDelayMs: 200, maxDelayMs: 5_000, timeoutMs: 2_000, maxAttempts: 1000 },
  env: {},
});
plugin.events.on('webhooks:delivered', () => process.stdout.write('delivered\n'));
plugin.notify(sampleEvent());
