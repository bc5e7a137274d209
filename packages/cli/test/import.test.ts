import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

// `toolgate import claude-code` on real settings files; the policy it writes is then used by `toolgate check`.
let root: string;
let project: string;
let home: string;
beforeAll(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-import-')));
  project = join(root, 'app');
  home = join(root, 'home');
  mkdirSync(join(project, '.claude'), { recursive: true });
  mkdirSync(join(home, '.claude'), { recursive: true });
  mkdirSync(join(root, 'shared-lib'));
  writeFileSync(
    join(project, '.claude', 'settings.json'),
    JSON.stringify({
      model: 'opus',
      permissions: {
        allow: ['Bash(npm run test:*)', 'Read(~/.config/app/**)', 'Edit(/docs/**)'],
        deny: ['Read(./.env)', 'Read(*.pem)', 'Edit(//etc/**)', 'Write(./dist/)', 'WebFetch'],
        ask: ['Edit(./package.json)', 'mcp__github__create_issue'],
        additionalDirectories: ['../shared-lib'],
      },
    }),
  );
  writeFileSync(
    join(home, '.claude', 'settings.json'),
    JSON.stringify({ permissions: { deny: ['Read(~/.aws/**)'] } }),
  );
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function toolgate(args: string[]) {
  return runCli(args, { cwd: project, home });
}

it('converts Read/Edit/Write rules and additionalDirectories from the user and project settings, and the policy judges like them', () => {
  const r = toolgate(['import', 'claude-code', '--out', 'toolgate.yaml']);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toMatch(/converted 8 rule\(s\) from 2 file\(s\); not converted: 3/);
  const text = readFileSync(join(project, 'toolgate.yaml'), 'utf8');
  expect(text).toContain('# deny Read(./.env) from');
  const check = (tool: string, path: string) =>
    toolgate(['check', '--call', JSON.stringify({ tool, args: { path } })]).code;
  expect(check('read_file', join(project, '.env'))).toBe(1); // deny Read(./.env)
  expect(check('read_file', join(project, 'keys', 'server.pem'))).toBe(1); // deny Read(*.pem): any depth
  expect(check('read_file', '~/.aws/credentials')).toBe(1); // from the user's settings
  expect(check('write_file', '/etc/hosts')).toBe(1); // deny Edit(//etc/**)
  expect(check('write_file', join(project, 'dist', 'a.js'))).toBe(1); // deny Write(./dist/)
  expect(check('read_file', join(project, 'dist', 'a.js'))).toBe(0); // …which denies writes only
  expect(check('write_file', join(project, 'package.json'))).toBe(3); // ask Edit ⇒ prompt
  expect(check('read_file', '~/.config/app/settings.ini')).toBe(0); // allow Read(~/…)
  expect(check('write_file', join(project, 'docs', 'x.md'))).toBe(0);
  expect(check('read_file', join(root, 'shared-lib', 'x.ts'))).toBe(0); // additionalDirectories: read freely…
  expect(check('write_file', join(root, 'shared-lib', 'x.ts'))).toBe(3); // …edits ask (defaultMode default)
  expect(check('read_file', '/opt/elsewhere')).toBe(3); // the default: approval, as in Claude Code
});

it('reports what it cannot convert, with the reason, in the policy and on stderr', () => {
  const r = toolgate(['import', 'claude-code']);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/^# toolgate policy imported/);
  for (const rule of ['Bash(npm run test:*)', 'WebFetch', 'mcp__github__create_issue']) {
    expect(r.stderr).toContain(`not converted: ${rule}`);
    expect(r.stdout).toContain(`#   ${rule} (`);
  }
  expect(r.stderr).toMatch(/Bash\(npm run test:\*\).*paths a command touches/);
});

it('refuses to overwrite without --force, and names a missing settings file', () => {
  expect(toolgate(['import', 'claude-code', '--out', 'toolgate.yaml']).code).toBe(2);
  expect(toolgate(['import', 'claude-code', '--settings', join(root, 'nope.json')]).stderr).toMatch(
    /nope\.json/,
  );
  expect(toolgate(['import', 'cursor']).code).toBe(2);
});
