import { execFileSync, spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

// Issue 25, item 5: the example runs outside the repository — packed (pnpm pack), installed with plain npm
// next to a packed @toolgate/core, started with `npm start` (which needs the tsx it declares). Runs against
// the built dist/ of core (the root `test` builds first).
const here = fileURLToPath(new URL('..', import.meta.url));
const repo = fileURLToPath(new URL('../../..', import.meta.url));
const work = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-example-')));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// pnpm passes its settings to children as npm_config_*; a user's npm has none of them.
const env = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^npm_|^pnpm_/i.test(k)),
) as NodeJS.ProcessEnv;

it('packs, installs with npm outside the repository and verifies itself with npm start', () => {
  const packs = join(work, 'packs');
  mkdirSync(packs);
  for (const dir of [join(repo, 'packages', 'core'), here])
    execFileSync('pnpm', ['pack', '--pack-destination', packs], { cwd: dir, env, stdio: 'ignore' });
  const tgz = readdirSync(packs);
  const core = tgz.find((f) => f.startsWith('toolgate-core-'));
  const example = tgz.find((f) => f.startsWith('toolgate-example-secret-files-'));
  expect(core && example).toBeTruthy();
  execFileSync('tar', ['xzf', join(packs, example!), '-C', work]);
  const app = join(work, 'package');
  const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'));
  // What the README tells a user to do until a release exists: core from its tarball.
  expect(pkg.devDependencies.tsx).toBeDefined();
  pkg.dependencies['@toolgate/core'] = `file:${join(packs, core!)}`;
  writeFileSync(join(app, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  const install = spawnSync(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'],
    {
      cwd: app,
      env,
      encoding: 'utf8',
      timeout: 240_000,
    },
  );
  expect(install.status, install.stderr).toBe(0);
  const start = spawnSync('npm', ['start', '--silent'], { cwd: app, env, encoding: 'utf8', timeout: 60_000 });
  expect(start.status, start.stderr).toBe(0);
  expect(start.stdout).toMatch(/\.env holds secrets/);
  expect(start.stdout.trim().split('\n').at(-1)).toBe('example verified');
}, 300_000);
