import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BIN, runCli } from './support/cli.js';

// `toolgate import gemini-cli` on real Gemini CLI policy files (TOML, https://geminicli.com/docs/reference/policy-engine/);
// the policy it writes is then used by `toolgate check`.
let root: string;
let project: string;
let home: string;
let team: string;
beforeAll(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-import-gemini-')));
  project = join(root, 'app');
  home = join(root, 'home');
  mkdirSync(join(project, '.gemini', 'policies'), { recursive: true });
  mkdirSync(join(home, '.gemini', 'policies'), { recursive: true });
  team = join(project, '.gemini', 'policies', 'team.toml');
  writeFileSync(
    team,
    `# the project's rules
[[rule]]
toolName = "read_file"
argsPattern = '"file_path":"/etc/'
decision = "deny"
priority = 500

[[rule]]
toolName = ["write_file", "replace"]
argsPattern = '"file_path":"/srv/app/config\\.json"'
decision = "ask_user"
priority = 100

[[rule]]
toolName = "run_shell_command"
commandPrefix = "git status"
decision = "allow"
priority = 100

[[rule]]
toolName = "write_file"
decision = "deny"
modes = ["plan"]
priority = 10

[[rule]]
toolName = "read_file"
argsPattern = '"file_path":"/(etc|var)/'
decision = "deny"
priority = 10

[[rule]]
mcpName = "github"
decision = "allow"
priority = 10

[[rule]]
toolName = ["read_file", "list_directory"]
argsPattern = '"dir_path":"/opt/data/.*'
decision = "allow"
priority = 10
`,
  );
  writeFileSync(
    join(home, '.gemini', 'policies', 'mine.toml'),
    `[[rule]]
toolName = ["read_file", "list_directory"]
argsPattern = '"path":"/opt/data/'
decision = "allow"
priority = 10

[[rule]]
toolName = "write_file"
argsPattern = '"file_path":"/var/log/app.log"'
decision = "deny"
priority = 900
`,
  );
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function toolgate(args: string[]) {
  return runCli(args, { cwd: project, home });
}

it("converts file tools' path rules from the user's and the project's policy files, and the policy judges like them", () => {
  const r = toolgate(['import', 'gemini-cli', '--out', 'toolgate.yaml']);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toMatch(/converted 5 rule\(s\) from 2 file\(s\); not converted: 5/);
  const text = readFileSync(join(project, 'toolgate.yaml'), 'utf8');
  expect(text).toContain(`# deny read_file "file_path":"/etc/ from ${team}#rule[0]`);
  const check = (tool: string, path: string) =>
    toolgate(['check', '--call', JSON.stringify({ tool, args: { path } })]).code;
  expect(check('read_file', '/etc/hosts')).toBe(1); // argsPattern "file_path":"/etc/ ⇒ /etc/**
  expect(check('write_file', '/srv/app/config.json')).toBe(3); // ask_user ⇒ prompt, exactly that file
  expect(check('read_file', '/srv/app/config.json')).toBe(3); // …for writes only: a read gets the default
  expect(check('write_file', '/srv/app/config.json5')).toBe(3); // the closing quote: not a prefix
  expect(check('read_file', '/opt/data/a/b.csv')).toBe(0); // allow, from the user's file
  expect(check('list_directory', '/opt/data')).toBe(0);
  expect(check('write_file', '/var/log/app.log')).toBe(1);
  expect(check('read_file', '/var/log/app.log')).toBe(3); // the deny is of writes; the default asks
  expect(check('write_file', join(project, 'src', 'a.ts'))).toBe(0); // the project itself
});

it('reports every rule it cannot convert, with file, rule index and reason, in the policy and on stderr', () => {
  const r = toolgate(['import', 'gemini-cli', team]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/^# toolgate policy imported from Gemini CLI policy rules/);
  const reasons: Array<[string, RegExp]> = [
    ['rule[2]', /shell command rule: toolgate judges the paths a command touches/],
    ['rule[3]', /active only in mode\(s\) plan/],
    ['rule[4]', /regex syntax "\(": not a path with certainty/],
    ['rule[5]', /narrowed by mcpName/],
    ['rule[6]', /tests "dir_path", not a path argument of the tool/],
  ];
  for (const [index, why] of reasons) {
    const line = r.stderr.split('\n').find((l) => l.includes(`(${team}#${index})`));
    expect(line, index).toMatch(why);
    expect(r.stdout).toContain(`(${team}#${index}):`);
  }
  // read_file's key is file_path: the list_directory part of rule[6] converts, the read_file part does not
  expect(r.stdout).toContain(`# allow list_directory "dir_path":"/opt/data/.* from ${team}#rule[6]`);
});

it('fails on malformed TOML naming the file, line and column, and on no files to read', () => {
  const bad = join(root, 'bad.toml');
  writeFileSync(bad, '[[rule]]\ntoolName = "read_file"\ndecision = = "deny"\n');
  const r = toolgate(['import', 'gemini-cli', bad]);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain(`${bad}:3:`);
  expect(r.stderr).toMatch(/malformed TOML/);
  const empty = join(root, 'empty');
  mkdirSync(empty);
  const none = spawnSync(process.execPath, [BIN, 'import', 'gemini-cli', '--dir', empty], {
    cwd: empty,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: empty },
  });
  expect(none.status).toBe(2);
  expect(none.stderr).toMatch(/no Gemini CLI policy files found/);
  expect(toolgate(['import', 'gemini-cli', join(root, 'nope.toml')]).stderr).toMatch(
    /nope\.toml: no such file/,
  );
});
