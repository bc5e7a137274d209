#!/usr/bin/env node
import { exitQuietlyOnClosedPipe } from './quietPipe.js';

exitQuietlyOnClosedPipe();
const argv = process.argv.slice(2);
// `toolgate hook` runs before every tool call an assistant makes: it skips the command-line framework and
// loads only what one decision needs — the bundle of the same source when it was built (with a V8 code
// cache, see hook/runHookBundle.ts), else tsc's modules. `--help` still goes to the full CLI.
if (argv[0] === 'hook' && !argv.includes('--help') && !argv.includes('-h')) {
  const { runHookBundle } = await import('./hook/runHookBundle.js');
  const code = await runHookBundle(argv.slice(1));
  if (code !== undefined) process.exitCode = code;
  else {
    const { hookMain } = await import('./hook/hookMain.js');
    process.exitCode = await hookMain(argv.slice(1));
  }
} else {
  const { main } = await import('./main.js');
  process.exitCode = await main(argv);
}
