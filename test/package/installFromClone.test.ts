import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

// Issue 25, item 5: the README's install instructions as a newcomer runs them before a release exists — from a
// clone, pack every package and install the tarballs globally in one command (they depend on each other), or
// link the CLI onto PATH. Both then answer a hook event. Runs against the built dist/ (the root `test` builds).
const repo = fileURLToPath(new URL('../..', import.meta.url));
const work = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-install-')));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// pnpm and npm pass their settings to children as npm_config_*; the user's npm has none of them.
const base = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^npm_|^pnpm_/i.test(k)),
) as NodeJS.ProcessEnv;
const home = join(work, 'home');
const project = join(work, 'project');
mkdirSync(home);
mkdirSync(project);

function hookAnswer(bin: string): string {
  const event = {
    session_id: 's1',
    transcript_path: join(work, 't.jsonl'),
    cwd: project,
    hook_event_name: 'PreToolUse',
    tool_name: 'Read',
    tool_input: { file_path: '~/.ssh/id_rsa' },
  };
  const env = { ...base, HOME: home, PATH: `${bin}:/usr/bin:/bin`, TOOLGATE_CACHE: 'off' };
  const init = spawnSync('toolgate', ['init'], { cwd: project, env, encoding: 'utf8' });
  expect(init.status, init.stderr).toBe(0);
  const r = spawnSync('toolgate', ['hook', 'claude-code'], {
    cwd: project,
    env,
    input: JSON.stringify(event),
    encoding: 'utf8',
  });
  rmSync(join(project, 'toolgate.yaml'), { force: true });
  return JSON.parse(r.stdout).hookSpecificOutput.permissionDecision;
}

it('pnpm pack + npm install -g of every tarball gives a working toolgate', () => {
  const packs = join(work, 'packs');
  execFileSync(
    'pnpm',
    ['-r', '--filter', './packages/*', '--filter', './plugins/*', 'pack', '--pack-destination', packs],
    { cwd: repo, env: base, stdio: 'ignore' },
  );
  const prefix = join(work, 'global');
  // --prefix stands for the user's global prefix; the npm cache stays the user's (a fresh one needs the network).
  const install = spawnSync(
    'npm',
    [
      'install',
      '-g',
      '--prefix',
      prefix,
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      '--loglevel=error',
      ...readdirSync(packs).map((f) => join(packs, f)),
    ],
    { env: base, encoding: 'utf8', timeout: 240_000 },
  );
  expect(install.status, install.stderr).toBe(0);
  expect(hookAnswer(join(prefix, 'bin'))).toBe('deny');
}, 300_000);

it('a link to the clone’s bin/toolgate.cjs on PATH gives a working toolgate', () => {
  const bin = join(work, 'bin');
  mkdirSync(bin);
  symlinkSync(join(repo, 'packages', 'cli', 'bin', 'toolgate.cjs'), join(bin, 'toolgate'));
  expect(hookAnswer(bin)).toBe('deny');
}, 60_000);
