import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN, runCli } from './support/cli.js';

const CLI_DIR = dirname(dirname(BIN));

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

/** The project's own install of toolgate, as npm or pnpm leaves it: node_modules/toolgate → the package. */
function linkProjectToolgate(dir: string): void {
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  symlinkSync(CLI_DIR, join(dir, 'node_modules', 'toolgate'));
}

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
    expect(installed.hooks.PreToolUse[1].hooks[0].command).toMatch(/ hook claude-code;/);

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
    linkProjectToolgate(project);
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
        hooks: [{ type: 'command', command: expect.stringMatching(/ hook gemini-cli;/), name: 'toolgate' }],
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

// Issue 25: the installed command names no path of this machine, finds toolgate in the project or on PATH
// when the hook runs, and blocks (exit 2, one line on stderr) whenever toolgate cannot answer — run here the
// way the assistants run it: `bash -c` (Gemini CLI; Claude Code's default) and `/bin/sh -c` (dash).
describe('the installed hook never fails open', () => {
  const nodeDir = dirname(process.execPath);
  const SHELLS = ['/bin/sh', 'bash'] as const;

  function installed(host: 'claude-code' | 'gemini-cli', extra: string[] = []): string {
    const r = toolgate(['install', host, ...extra]);
    expect(r.code, r.stderr).toBe(0);
    const file = join(project, `.${host === 'claude-code' ? 'claude' : 'gemini'}`, 'settings.json');
    const settings = JSON.parse(readFileSync(file, 'utf8'));
    return settings.hooks[host === 'claude-code' ? 'PreToolUse' : 'BeforeTool'][0].hooks[0].command as string;
  }

  const claudeEvent = (file_path: string, cwd = project) =>
    JSON.stringify({
      session_id: 's',
      transcript_path: '/tmp/t',
      cwd,
      hook_event_name: 'PreToolUse',
      tool_name: 'Read',
      tool_input: { file_path },
    });

  /** Runs `command` as a host does: through `shell -c`, in the project, with the project variables set. */
  function runHook(
    command: string,
    input: string,
    o: { shell?: string; PATH?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {},
  ) {
    const shell = o.shell ?? 'bash';
    const r = spawnSync(shell === 'bash' ? '/bin/bash' : shell, ['-c', command], {
      cwd: o.cwd ?? project,
      input,
      encoding: 'utf8',
      env: {
        PATH: o.PATH ?? nodeDir,
        HOME: home,
        CLAUDE_PROJECT_DIR: project,
        TOOLGATE_CACHE: 'off',
        ...o.env,
      },
    });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  /** A directory on PATH holding one executable `toolgate` with this body. */
  function pathWith(body: string): string {
    const dir = join(root, `bin-${n}-${Math.random().toString(36).slice(2)}`);
    mkdirSync(dir);
    writeFileSync(join(dir, 'toolgate'), `#!/bin/sh\n${body}\n`);
    chmodSync(join(dir, 'toolgate'), 0o755);
    return `${dir}:${nodeDir}`;
  }

  const oneLine = (stderr: string) => stderr.trimEnd().split('\n');

  it('names no path of this machine (a teammate’s clone runs the same file) and no spelling the hosts rewrite', () => {
    for (const host of ['claude-code', 'gemini-cli'] as const) {
      const command = installed(host);
      for (const local of [root, CLI_DIR, process.execPath, nodeDir]) expect(command).not.toContain(local);
      // Gemini CLI replaces $GEMINI_PROJECT_DIR / $CLAUDE_PROJECT_DIR with a quoted path in the text, Claude
      // Code ${CLAUDE_PROJECT_DIR} in some hooks: the launcher's ${VAR:-.} is left to the shell.
      expect(command).not.toMatch(
        /\$(GEMINI_PROJECT_DIR|CLAUDE_PROJECT_DIR|GEMINI_CWD)\b|\$\{CLAUDE_PROJECT_DIR\}/,
      );
    }
  });

  it("the project's own toolgate (node_modules/toolgate) answers; after rm -rf node_modules the call is blocked", () => {
    const command = installed('claude-code');
    linkProjectToolgate(project);
    expect(existsSync(join(nodeDir, 'toolgate'))).toBe(false); // PATH below is node's directory alone
    for (const shell of SHELLS) {
      const denied = runHook(command, claudeEvent(join(home, '.ssh', 'id_rsa')), { shell });
      expect(denied.status, denied.stderr).toBe(0);
      expect(JSON.parse(denied.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
      expect(runHook(command, claudeEvent(join(project, 'a.txt')), { shell })).toEqual({
        status: 0,
        stdout: '',
        stderr: '',
      });
    }
    rmSync(join(project, 'node_modules'), { recursive: true });
    for (const shell of SHELLS) {
      const blocked = runHook(command, claudeEvent(join(home, '.ssh', 'id_rsa')), { shell });
      expect(blocked.status).toBe(2);
      expect(blocked.stdout).toBe('');
      expect(oneLine(blocked.stderr)).toEqual([
        `toolgate: call blocked: toolgate is not installed (no ${project}/node_modules/toolgate/bin/toolgate.cjs, no toolgate on PATH): npm i -D toolgate, or npm i -g toolgate`,
      ]);
    }
  });

  it('toolgate on PATH answers when the project has none; a hook run outside the project dir finds it by the variable', () => {
    const command = installed('claude-code');
    const PATH = pathWith(`exec '${process.execPath}' '${BIN}' "$@"`);
    const denied = runHook(command, claudeEvent(join(home, '.ssh', 'id_rsa')), { PATH });
    expect(JSON.parse(denied.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
    linkProjectToolgate(project);
    const elsewhere = runHook(command, claudeEvent(join(home, '.ssh', 'id_rsa')), { cwd: home });
    expect(elsewhere.status, elsewhere.stderr).toBe(0);
    expect(JSON.parse(elsewhere.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
  });

  it('node missing, a crash, a signal: exit 2 with one line; toolgate’s own exit 2 passes through as it is', () => {
    const command = installed('claude-code');
    const event = claudeEvent(join(project, 'a.txt'));
    for (const shell of SHELLS) {
      const emptyDir = join(root, `empty-${n}`);
      mkdirSync(emptyDir, { recursive: true });
      const noNode = runHook(command, event, { shell, PATH: emptyDir });
      expect(noNode.status).toBe(2);
      expect(oneLine(noNode.stderr)).toEqual([
        'toolgate: call blocked: node is not on PATH (the toolgate hook needs Node.js and toolgate: npm i -D toolgate, or npm i -g toolgate)',
      ]);
      // exit 1 — Claude Code's "non-blocking error", Gemini CLI's "allow with a warning"
      const crash = runHook(command, event, {
        shell,
        PATH: pathWith('echo "Error: Cannot find module" >&2; exit 1'),
      });
      expect(crash.status).toBe(2);
      expect(oneLine(crash.stderr)).toEqual([
        'Error: Cannot find module',
        'toolgate: call blocked: the toolgate hook failed (status 1, no answer): reinstall toolgate (npm i -D toolgate, or npm i -g toolgate)',
      ]);
      const killed = runHook(command, event, { shell, PATH: pathWith('kill -9 $$') });
      expect(killed.status).toBe(2);
      expect(oneLine(killed.stderr).pop()).toMatch(/failed \(status 137, no answer\)/);
      const unrunnable = runHook(command, event, { shell, PATH: pathWith('exit 127') });
      expect(unrunnable.status).toBe(2);
    }
    // a broken project install (the entry itself throws): node's exit 1, blocked
    mkdirSync(join(project, 'node_modules', 'toolgate', 'bin'), { recursive: true });
    writeFileSync(
      join(project, 'node_modules', 'toolgate', 'bin', 'toolgate.cjs'),
      'throw new Error("broken");\n',
    );
    const broken = runHook(command, event);
    expect(broken.status).toBe(2);
    expect(broken.stdout).toBe('');
    expect(oneLine(broken.stderr).pop()).toMatch(
      /^toolgate: call blocked: the toolgate hook failed \(status 1/,
    );
    // toolgate's own blocking error (a malformed event): its reason alone
    rmSync(join(project, 'node_modules'), { recursive: true });
    linkProjectToolgate(project);
    const malformed = runHook(command, 'not json');
    expect(malformed.status).toBe(2);
    expect(malformed.stderr).toMatch(/^toolgate: /);
    expect(malformed.stderr).not.toMatch(/the toolgate hook failed/);
  });

  it('gemini-cli: the same launcher, by GEMINI_PROJECT_DIR; a deny answers on stdout, a missing toolgate blocks', () => {
    const command = installed('gemini-cli');
    expect(command).toContain('${GEMINI_PROJECT_DIR:-.}/node_modules/toolgate/bin/toolgate.cjs');
    const event = JSON.stringify({
      session_id: 's',
      transcript_path: '/tmp/t',
      cwd: project,
      hook_event_name: 'BeforeTool',
      tool_name: 'read_file',
      tool_input: { file_path: join(home, '.ssh', 'id_rsa') },
    });
    // Gemini CLI sets both variables (CLAUDE_PROJECT_DIR "for compatibility"); here only its own
    const env = { CLAUDE_PROJECT_DIR: undefined, GEMINI_PROJECT_DIR: project };
    const missing = runHook(command, event, { env, cwd: home });
    expect(missing.status).toBe(2);
    expect(missing.stdout).toBe('');
    expect(oneLine(missing.stderr)).toHaveLength(1);
    linkProjectToolgate(project);
    const denied = runHook(command, event, { env, cwd: home });
    expect(denied.status, denied.stderr).toBe(0);
    expect(JSON.parse(denied.stdout)).toMatchObject({ decision: 'deny' });
  });

  it('a policy inside the project is named relative to the project directory', () => {
    mkdirSync(join(project, 'conf'));
    writeFileSync(join(project, 'conf', 'my policy.yaml'), readFileSync(join(project, 'toolgate.yaml')));
    const command = installed('claude-code', ['--policy', join(project, 'conf', 'my policy.yaml')]);
    expect(command).toContain('hook claude-code --policy "${CLAUDE_PROJECT_DIR:-.}/conf/my policy.yaml";');
    rmSync(join(project, 'toolgate.yaml'));
    linkProjectToolgate(project);
    const denied = runHook(command, claudeEvent(join(home, '.ssh', 'id_rsa')), { cwd: home });
    expect(denied.status, denied.stderr).toBe(0);
    expect(JSON.parse(denied.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
  });

  it('install over the old command form updates it; uninstall removes the old and the new form', () => {
    const file = join(project, '.claude', 'settings.json');
    mkdirSync(join(project, '.claude'));
    const old = (command: string) => ({
      ...USER_SETTINGS,
      hooks: {
        ...USER_SETTINGS.hooks,
        PreToolUse: [
          ...USER_SETTINGS.hooks.PreToolUse,
          { matcher: '*', hooks: [{ type: 'command', command }] },
        ],
      },
    });
    for (const command of [
      "/usr/bin/node /home/dev/src/toolgate/packages/cli/bin/toolgate.cjs hook claude-code --policy '/home/dev/p/toolgate.yaml'",
      '/opt/node/bin/node /usr/lib/node_modules/toolgate/bin/toolgate.cjs hook claude-code',
      'toolgate hook claude-code',
    ]) {
      writeFileSync(file, JSON.stringify(old(command), null, 2));
      expect(toolgate(['uninstall', 'claude-code']).stdout).toMatch(/removed/);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(USER_SETTINGS);
      writeFileSync(file, JSON.stringify(old(command), null, 2));
      const r = toolgate(['install', 'claude-code']);
      expect(r.stdout).toMatch(/hook updated in/);
      const hooks = JSON.parse(readFileSync(file, 'utf8')).hooks.PreToolUse;
      expect(hooks).toHaveLength(2);
      expect(hooks[1].hooks[0].command).toContain('exit 2');
      expect(toolgate(['uninstall', 'claude-code']).stdout).toMatch(/removed/);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(USER_SETTINGS);
    }
  });

  it('install says which file it writes and what a teammate needs; --local adds the file to .gitignore once', () => {
    const shared = toolgate(['install', 'claude-code']);
    expect(shared.stdout).toContain(`hook installed in ${join(project, '.claude', 'settings.json')}`);
    expect(shared.stdout).toMatch(/file: shared: commit it, and every teammate's Claude Code runs the hook/);
    expect(shared.stdout).toMatch(
      /every teammate needs: Node.js and toolgate \(npm install --save-dev toolgate in the project, or npm install -g toolgate\), and toolgate\.yaml committed; where the hook finds no toolgate it blocks every tool call/,
    );
    expect(shared.stdout).toMatch(/warning: toolgate is neither in .* nor on PATH/);
    expect(existsSync(join(project, '.gitignore'))).toBe(false);

    writeFileSync(join(project, '.gitignore'), 'node_modules\ndist');
    linkProjectToolgate(project);
    const local = toolgate(['install', 'claude-code', '--local']);
    expect(local.code, local.stderr).toBe(0);
    expect(local.stdout).toContain(`hook installed in ${join(project, '.claude', 'settings.local.json')}`);
    expect(local.stdout).toMatch(/file: this clone only/);
    expect(local.stdout).toMatch(/\.gitignore: added \.claude\/settings\.local\.json/);
    expect(local.stdout).toMatch(/this clone needs: Node\.js and toolgate/);
    expect(local.stdout).toContain(
      `toolgate here: ${join(project, 'node_modules', 'toolgate', 'bin', 'toolgate.cjs')}`,
    );
    expect(readFileSync(join(project, '.gitignore'), 'utf8')).toBe(
      'node_modules\ndist\n.claude/settings.local.json\n',
    );
    expect(toolgate(['uninstall', 'claude-code', '--local']).code).toBe(0);
    const again = toolgate(['install', 'claude-code', '--local']);
    expect(again.stdout).not.toMatch(/\.gitignore: added/);
    expect(readFileSync(join(project, '.gitignore'), 'utf8')).toBe(
      'node_modules\ndist\n.claude/settings.local.json\n',
    );

    const gemini = toolgate(['install', 'gemini-cli']);
    expect(gemini.stdout).toMatch(/file: shared: commit it, and every teammate's Gemini CLI runs the hook/);
  });
});
