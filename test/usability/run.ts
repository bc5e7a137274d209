import { runUsability } from './runUsability.js';

// `pnpm usability [--only CATEGORY] [--json FILE]`. A report, not a gate: it exits 0 unless it crashes.
const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const only = flag('--only');
const json = flag('--json');
await runUsability({ ...(only ? { only } : {}), ...(json ? { json } : {}) });
