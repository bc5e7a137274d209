import { extractAccesses } from '../src/index.js';
import { FIXTURE_ENV, fakeContext, formatAll } from './helpers.js';

const ctx = fakeContext(FIXTURE_ENV, '/tmp');
for (const cmd of process.argv.slice(2)) {
  const a = formatAll(extractAccesses(cmd, ctx, { parse: 'auto' }).accesses);
  const f = formatAll(extractAccesses(cmd, ctx, { parse: 'full' }).accesses);
  console.log(
    JSON.stringify(a) === JSON.stringify(f) ? 'same' : 'DIFF',
    cmd,
    JSON.stringify(a),
    JSON.stringify(f),
  );
}
