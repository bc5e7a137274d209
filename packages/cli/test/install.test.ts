import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

// `toolgate install|uninstall` on real settings files in temp directories, and the installed command run the
// way the assistant runs it (sh -c) on a real event.
const root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-install-')));
let project: string;
let home: string;
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
beforeEach(() => {
  n++;
  project = join(root, `project-${n}`);
  home = join(root, `home-${n}`);
  mkdirSync(project, { recursive: true });
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(
    join(project, 'toolgate.yaml'),
    'default: deny\nrules:\n  - { pattern: "<workspace>/**", access: write }\n  - { pattern: "~/.ssh/**", access: deny }\n',
  );
});

function toolgate(args: string[], cwd = project) {
  return runCli(args, { cwd, home, env: { XDG_CONFIG_HOME: join(home, '.config') } });
}

const USER_SETTINGS = {
  model: 'opus',
  permissions: { allow: ['Bash(npm test)'], deny: ['Read(./.env)'] },
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './scripts/check-bash.sh' }] }],
    PostToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: 'prettier --write' }] }],
  },
};

describe('toolgate install claude-code', () => {
  it('adds one PreToolUse hook, keeps every other key, is idempotent, and uninstall restores the file', () => {
    const file = join(project, '.claude', 'settings.json');
    mkdirSync(join(project, '.claude'));
    writeFileSync(file, JSON.stringify(USER_SETTINGS, null, 2));
    const first = toolgate(['install', 'claude-code']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/installed in .*settings\.json/);
    const installed = JSON.parse(readFileSync(file, 'utf8'));
    expect(installed.model).toBe('opus');
    expect(installed.permissions).toEqual(USER_SETTINGS.permissions);
    expect(installed.hooks.PostToolUse).toEqual(USER_SETTINGS.hooks.PostToolUse);
    expect(installed.hooks.PreToolUse).toHaveLength(2);
    expect(installed.hooks.PreToolUse[0]).toEqual(USER_SETTINGS.hooks.PreToolUse[0]);
    expect(installed.hooks.PreToolUse[1]).toMatchObject({ matcher: '*', hooks: [{ type: 'command' }] });
    expect(installed.hooks.PreToolUse[1].hooks[0].command).toMatch(/hook claude-code$/);

    const bytes = readFileSync(file, 'utf8');
    const again = toolgate(['install', 'claude-code']);
    expect(again.stdout).toMatch(/already installed/);
    expect(readFileSync(file, 'utf8')).toBe(bytes);

    expect(toolgate(['uninstall', 'claude-code']).stdout).toMatch(/removed/);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(USER_SETTINGS);
    expect(toolgate(['uninstall', 'claude-code']).stdout).toMatch(/nothing to remove/);
  });

  it('the installed command is a working hook: it denies ~/.ssh and defers a workspace read', () => {
    expect(toolgate(['install', 'claude-code']).code).toBe(0);
    const settings = JSON.parse(readFileSync(join(project, '.claude', 'settings.json'), 'utf8'));
    const command = settings.hooks.PreToolUse[0].hooks[0].command as string;
    const event = (file_path: string) =>
      JSON.stringify({
        session_id: 's',
        transcript_path: '/tmp/t',
        cwd: project,
        hook_event_name: 'PreToolUse',
        tool_name: 'Read',
        tool_input: { file_path },
      });
    // As Claude Code runs it: through a shell, in the project, with CLAUDE_PROJECT_DIR set.
    const run = (input: string) =>
      spawnSync('sh', ['-c', command], {
        cwd: project,
        input,
        encoding: 'utf8',
        env: { PATH: process.env.PATH, HOME: home, CLAUDE_PROJECT_DIR: project, TOOLGATE_CACHE: 'off' },
      });
    const denied = run(event(join(home, '.ssh', 'id_rsa')));
    expect(denied.status).toBe(0);
    expect(JSON.parse(denied.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
    const fine = run(event(join(project, 'README.md')));
    expect(fine).toMatchObject({ status: 0, stdout: '', stderr: '' });
  });

  it('--dry-run prints the file and writes nothing; --user writes ~/.claude/settings.json; --local the local file', () => {
    const dry = toolgate(['install', 'claude-code', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/would write/);
    expect(JSON.parse(dry.stdout.slice(dry.stdout.indexOf('{'))).hooks.PreToolUse).toHaveLength(1);
    expect(existsSync(join(project, '.claude'))).toBe(false);

    expect(toolgate(['install', 'claude-code', '--local']).code).toBe(0);
    expect(existsSync(join(project, '.claude', 'settings.local.json'))).toBe(true);

    // --user needs a policy every project can use: the user's own
    expect(toolgate(['install', 'claude-code', '--user']).code).toBe(2);
    mkdirSync(join(home, '.config', 'toolgate'), { recursive: true });
    writeFileSync(join(home, '.config', 'toolgate', 'policy.yaml'), 'default: deny\n');
    expect(toolgate(['install', 'claude-code', '--user'], home).code).toBe(0);
    expect(
      JSON.parse(readFileSync(join(home, '.claude', 'settings.json'), 'utf8')).hooks.PreToolUse,
    ).toHaveLength(1);
  });

  it('refuses without a policy to find (the hook would block every call) and never rewrites a file it cannot parse', () => {
    rmSync(join(project, 'toolgate.yaml'));
    const none = toolgate(['install', 'claude-code']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/toolgate init/);
    expect(existsSync(join(project, '.claude'))).toBe(false);

    writeFileSync(join(project, 'toolgate.yaml'), 'default: deny\n');
    mkdirSync(join(project, '.claude'));
    writeFileSync(join(project, '.claude', 'settings.json'), '{ "model": "opus", // a comment\n}');
    const bad = toolgate(['install', 'claude-code']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/not plain JSON/);
    expect(readFileSync(join(project, '.claude', 'settings.json'), 'utf8')).toBe(
      '{ "model": "opus", // a comment\n}',
    );
  });
});

describe('toolgate install gemini-cli', () => {
  it('adds a BeforeTool hook to .gemini/settings.json and uninstall removes only it', () => {
    const file = join(project, '.gemini', 'settings.json');
    mkdirSync(join(project, '.gemini'));
    writeFileSync(
      file,
      JSON.stringify({
        theme: 'Dracula',
        hooks: { AfterTool: [{ matcher: '.*', hooks: [{ type: 'command', command: 'log.sh' }] }] },
      }),
    );
    expect(toolgate(['install', 'gemini-cli']).code).toBe(0);
    const installed = JSON.parse(readFileSync(file, 'utf8'));
    expect(installed.theme).toBe('Dracula');
    expect(installed.hooks.BeforeTool).toEqual([
      {
        matcher: '.*',
        hooks: [{ type: 'command', command: expect.stringMatching(/hook gemini-cli$/), name: 'toolgate' }],
      },
    ]);
    expect(toolgate(['uninstall', 'gemini-cli']).code).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      theme: 'Dracula',
      hooks: { AfterTool: [{ matcher: '.*', hooks: [{ type: 'command', command: 'log.sh' }] }] },
    });
    expect(toolgate(['install', 'gemini-cli', '--local']).code).toBe(2);
  });
});
