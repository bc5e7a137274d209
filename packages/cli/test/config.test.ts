import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from './support/cli.js';

// Configuration with no flags: discovery, the on-disk policy cache, `plugins:` and `hook:` in the policy file.
// Everything through the built CLI, in real temp directories.
let root: string;
let project: string;
let home: string;
let cache: string;

const POLICY = [
  '# a native policy; the CLI sections (plugins, hook) are read by the CLI, the rest by folder-rules',
  'default: deny',
  'rules:',
  '  - { pattern: "<workspace>/**", access: write }',
  '  - { pattern: "~/.ssh/**", access: deny }',
  '',
].join('\n');

beforeAll(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-config-')));
  project = join(root, 'project');
  home = join(root, 'home');
  cache = join(root, 'cache');
  mkdirSync(join(project, 'src', 'deep'), { recursive: true });
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(project, 'toolgate.yaml'), POLICY);
  // A third-party plugin, installed in the project as a package would be (ESM, `import`-only exports map).
  const pkg = join(project, 'node_modules', '@acme', 'toolgate-no-txt');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(
    join(pkg, 'package.json'),
    JSON.stringify({
      name: '@acme/toolgate-no-txt',
      type: 'module',
      exports: { '.': { import: './index.js' } },
    }),
  );
  writeFileSync(
    join(pkg, 'index.js'),
    `export function noTxt(options) {
       if (!options || typeof options.suffix !== 'string') throw new Error('option suffix must be a string');
       return {
         name: 'no-txt',
         apply(hooks) {
           hooks.beforeToolCall.tap('no-txt', (call) => {
             const path = call.args.path;
             if (typeof path === 'string' && path.endsWith(options.suffix))
               return { action: 'deny', code: 'PATH_DENIED', reason: 'no ' + options.suffix + ' files (acme)' };
             return undefined;
           });
         },
       };
     }
     export const notAFactory = 1;`,
  );
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function toolgate(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}, input?: string) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    input,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: home, TOOLGATE_CACHE_DIR: cache, ...env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const call = (path: string) => ['check', '--call', JSON.stringify({ tool: 'read_file', args: { path } })];

describe('policy discovery (no --policy, no --dialect)', () => {
  it('finds toolgate.yaml walking up from the working directory', () => {
    const deep = join(project, 'src', 'deep');
    expect(toolgate([...call('~/.ssh/id_rsa')], deep).code).toBe(1);
    // the workspace defaults to the cwd: src/deep/x is inside it
    expect(toolgate([...call('x.txt')], deep).code).toBe(0);
  });

  it('finds .toolgate/policy.yaml, then the user config directory, then TOOLGATE_POLICY', () => {
    const other = join(root, 'other');
    mkdirSync(join(other, '.toolgate'), { recursive: true });
    writeFileSync(join(other, '.toolgate', 'policy.yaml'), 'default: allow\n');
    expect(toolgate([...call('/etc/hostname')], other).code).toBe(0);

    const bare = join(root, 'bare');
    mkdirSync(bare);
    const none = toolgate([...call('/etc/hostname')], bare);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no policy found/);
    expect(none.stderr).toMatch(/toolgate init/);

    const xdg = join(root, 'xdg');
    mkdirSync(join(xdg, 'toolgate'), { recursive: true });
    writeFileSync(join(xdg, 'toolgate', 'policy.yaml'), 'default: deny\n');
    expect(toolgate([...call('/etc/hostname')], bare, { XDG_CONFIG_HOME: xdg }).code).toBe(1);

    const envPolicy = join(root, 'env-policy.yaml');
    writeFileSync(envPolicy, 'default: allow\n');
    // a file of any name: its dialect is given (inferring it from the contents is folder-rules' job)
    const viaEnv = toolgate([...call('/etc/hostname'), '--dialect', 'toolgate'], bare, {
      TOOLGATE_POLICY: envPolicy,
      XDG_CONFIG_HOME: join(root, 'nothing'),
    });
    expect(viaEnv.code).toBe(0);
  });

  it('a toolgate-named file given another --dialect is refused (it would load as an empty policy that allows)', () => {
    for (const dialect of ['openfang', 'hermes']) {
      const r = toolgate([...call('~/.ssh/id_rsa'), '--dialect', dialect], project);
      expect(r.code, dialect).toBe(2);
      expect(r.stderr).toMatch(/is a toolgate policy/);
    }
    // `--dialect wolo` alone reads wolo's own ~/.wolo/config.yaml (seed 002), not the project's file; named
    // with --policy, the project's toolgate.yaml is refused the same way.
    const wolo = toolgate(
      [...call('~/.ssh/id_rsa'), '--dialect', 'wolo', '--policy', join(project, 'toolgate.yaml')],
      project,
    );
    expect(wolo.code).toBe(2);
    expect(wolo.stderr).toMatch(/is a toolgate policy/);
  });
});

describe('the compiled-policy cache', () => {
  it('is written on first use and never serves a stale policy', () => {
    const dir = join(root, 'cached');
    mkdirSync(dir);
    const file = join(dir, 'toolgate.yaml');
    writeFileSync(file, 'default: deny\nrules:\n  - { pattern: "${SAFE_DIR}/**", access: read }\n');
    const env = { SAFE_DIR: '/etc' };
    expect(toolgate([...call('/etc/hostname')], dir, env).code).toBe(0);
    expect(readdirSync(join(cache, 'policies')).length).toBeGreaterThan(0);
    expect(toolgate([...call('/etc/hostname')], dir, env).code).toBe(0); // a hit: same answer
    // the variable the loader expanded changed: recompiled, not served from the cache
    expect(toolgate([...call('/etc/hostname')], dir, { SAFE_DIR: '/srv' }).code).toBe(1);
    // the file changed (same size, other content): recompiled
    writeFileSync(file, 'default: deny\nrules:\n  - { pattern: "${SAFE_DIR}/**", access: deny }\n');
    expect(toolgate([...call('/etc/hostname')], dir, env).code).toBe(1);
  });
});

describe('plugins: and hook: in the policy file', () => {
  const withPlugin = (extra: string) =>
    `${POLICY}plugins:\n  - package: "@acme/toolgate-no-txt"\n    export: noTxt\n    options: { suffix: ".txt" }\n${extra}`;

  it('loads a third-party plugin by package name with its options, in check and in the hook', () => {
    writeFileSync(join(project, 'toolgate.yaml'), withPlugin(''));
    const denied = toolgate([...call('notes.txt'), '--json'], project);
    expect(denied.code).toBe(1);
    expect(denied.stdout).toMatch(/no \.txt files \(acme\)/);
    expect(toolgate([...call('notes.md')], project).code).toBe(0);
    const event = JSON.stringify({
      session_id: 's',
      transcript_path: '/tmp/t',
      cwd: project,
      hook_event_name: 'PreToolUse',
      tool_name: 'Read',
      tool_input: { file_path: join(project, 'notes.txt') },
    });
    const hook = toolgate(['hook', 'claude-code'], project, { CLAUDE_PROJECT_DIR: project }, event);
    expect(hook.code).toBe(0);
    expect(JSON.parse(hook.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
  });

  it('hook.approveAllowed opts in to answering allow', () => {
    writeFileSync(join(project, 'toolgate.yaml'), withPlugin('hook:\n  approveAllowed: true\n'));
    const event = JSON.stringify({
      session_id: 's',
      transcript_path: '/tmp/t',
      cwd: project,
      hook_event_name: 'PreToolUse',
      tool_name: 'Read',
      tool_input: { file_path: join(project, 'notes.md') },
    });
    const r = toolgate(['hook', 'claude-code'], project, { CLAUDE_PROJECT_DIR: project }, event);
    expect(JSON.parse(r.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: 'allow' });
  });

  it.each([
    ['a package that is not installed', '  - "@acme/missing"\n', /plugins\[0\]\.package.*not installed/],
    [
      'no factory named',
      '  - { package: "@acme/toolgate-no-txt", export: notAFactory }\n',
      /plugins\[0\]\.export/,
    ],
    [
      'options the factory rejects',
      '  - { package: "@acme/toolgate-no-txt", export: noTxt, options: { suffix: 3 } }\n',
      /plugins\[0\]\.options.*suffix must be a string/,
    ],
    [
      'an unknown field',
      '  - { package: "@acme/toolgate-no-txt", option: {} }\n',
      /plugins\[0\]\.option: unknown field/,
    ],
  ])('%s fails at load naming file and field (exit 2)', (_name, entry, message) => {
    writeFileSync(join(project, 'toolgate.yaml'), `${POLICY}plugins:\n${entry}`);
    const r = toolgate([...call('notes.md')], project);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(join(project, 'toolgate.yaml'));
    expect(r.stderr).toMatch(message);
  });
});
