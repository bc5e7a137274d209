import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

// The README's "Compose a guard" example is run as written (against the built packages), so the front page
// cannot drift from the API.
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const section = readme.slice(readme.indexOf('## Compose a guard'));
const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
const here = fileURLToPath(new URL('.', import.meta.url));
const snippet = join(here, '.readme-snippet.mts');
const work = realpathSync(mkdtempSync(join(tmpdir(), 'tg-readme-')));
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  rmSync(snippet, { force: true });
});

it('the README example composes a guard that denies reading an SSH key through the shell', () => {
  expect(code).toBeDefined();
  writeFileSync(snippet, code!);
  writeFileSync(
    join(work, 'policy.toml'),
    '[file_policy]\ndefault = "deny"\nwrite_paths = ["<workspace>/**"]\ndeny_paths = ["~/.ssh/**"]\n',
  );
  // tsx is loaded by absolute URL: the example runs with the user's directory as cwd, where tsx is not installed.
  const tsx = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
  const r = spawnSync(process.execPath, ['--import', tsx, snippet], {
    cwd: work,
    encoding: 'utf8',
    env: { ...process.env, HOME: join(work, 'home'), CI: 'true' },
    timeout: 30_000,
  });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/code: 'PATH_DENIED'/);
  expect(r.stdout).toMatch(/tool_name: 'shell_execute'/);
  // the audit plugin recorded the deny in the file the example names
  expect(readFileSync(join(work, 'violations.log'), 'utf8')).toMatch(/SECURITY_VIOLATION/);
});
