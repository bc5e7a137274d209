import { extractAccesses } from '../src/index.js';
import { fakeContext, formatAll } from './helpers.js';

const cwd = process.env.CWD ?? '/ws/project';
for (const cmd of process.argv.slice(2)) {
  try {
    console.log('$', cmd);
    for (const l of formatAll(extractAccesses(cmd, fakeContext({}, cwd)).accesses)) console.log('  ', l);
  } catch (e) {
    console.log('  ERR', (e as Error).message);
  }
}
