import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallContext, createGuard, parsePatch } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shell } from '../src/shell.js';
import { DEFAULT_TOOLS } from '../src/shellOptions.js';
import { argvScript } from '../src/tools/argvScript.js';
import { findCommands } from '../src/tools/commandKeys.js';
import { denyUnder } from './denyUnder.js';

// Shell tools under other names (issue 13, class 4): every known tool's real argument names, argv arrays,
// env/cwd/shell arguments, input and code tools, and undeclared tools carrying a command — against real
// files in a temporary tree, judged by a policy that denies ~/.ssh and a directory standing in for /etc.
let root: string;
let ws: string;
let home: string;
let etc: string;
let ctx: CallContext;

beforeAll(() => {
  root = realpathSync.native(mkdtempSync(join(tmpdir(), 'toolgate-tools-')));
  ws = join(root, 'ws');
  home = join(root, 'home');
  etc = join(root, 'etc');
  mkdirSync(join(ws, 'src'), { recursive: true });
  mkdirSync(join(home, '.ssh'), { recursive: true });
  mkdirSync(join(etc, 'cron.d'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'KEY');
  writeFileSync(join(ws, 'src', 'a.ts'), 'export {};\n');
  symlinkSync(join(home, '.ssh'), join(ws, 'keys'));
  ctx = {
    sessionId: 's',
    agentId: 'a',
    cwd: ws,
    workspace: ws,
    home,
    env: { HOME: home, PATH: '/usr/local/bin:/usr/bin:/bin' },
  };
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function decide(tool: string, args: Record<string, unknown>, options = {}) {
  const guard = createGuard({ plugins: [shell(options), denyUnder([join(home, '.ssh'), etc])] });
  return guard.check({ tool, args }, ctx, { resolvePrompts: false });
}

/** `READ_KEY` / `WRITE_CRON` stand for the attack; each known tool carries it under its own argument names. */
const READ_KEY = 'cat ~/.ssh/id_rsa';
const writeCron = () => `echo '* * * * * root sh' > ${etc}/cron.d/x`;

describe('known shell tools: the attack under each tool name is denied, its benign twin allowed', () => {
  const cases: Array<
    [string, (cmd: string) => Record<string, unknown>, (cmd: string) => Record<string, unknown>]
  > = [
    ['Bash', (c) => ({ command: c, description: 'x' }), (c) => ({ command: c })],
    [
      'run_shell_command',
      (c) => ({ command: c, description: 'x' }),
      (c) => ({ command: c, dir_path: 'src' }),
    ],
    ['shell', (c) => ({ command: ['bash', '-lc', c], workdir: ws }), () => ({ command: ['git', 'status'] })],
    ['shell_command', (c) => ({ command: c, workdir: ws, login: true }), (c) => ({ command: c })],
    [
      'local_shell',
      (c) => ({ action: { type: 'exec', command: ['bash', '-lc', c], env: {} } }),
      () => ({ action: { type: 'exec', command: ['ls', 'src'], working_directory: ws } }),
    ],
    [
      'exec_command',
      (c) => ({ cmd: c, yield_time_ms: 1000 }),
      (c) => ({ cmd: c, workdir: ws, login: false }),
    ],
    [
      'run_terminal_cmd',
      (c) => ({ command: c, is_background: false }),
      (c) => ({ command: c, is_background: true }),
    ],
    [
      'execute_command',
      (c) => ({ command: c, requires_approval: false }),
      (c) => ({ command: c, timeout_ms: 5000 }),
    ],
    [
      'start_process',
      (c) => ({ command: c, timeout_ms: 5000 }),
      (c) => ({ command: c, timeout_ms: 5000, shell: 'bash' }),
    ],
    [
      'mcp__desktop-commander__start_process',
      (c) => ({ command: c, timeout_ms: 5000 }),
      (c) => ({ command: c, timeout_ms: 5000 }),
    ],
    ['execute_bash', (c) => ({ command: c, is_input: 'false' }), (c) => ({ command: c, timeout: 10 })],
  ];
  for (const [tool, attack, benign] of cases) {
    it(`${tool}: reading ~/.ssh/id_rsa and writing cron.d are denied`, async () => {
      expect((await decide(tool, attack(READ_KEY))).action).toBe('deny');
      expect((await decide(tool, attack(writeCron()))).action).toBe('deny');
    });
    it(`${tool}: ls src is allowed and touches what it says`, async () => {
      const d = await decide(tool, benign('ls src'));
      expect(d.action, JSON.stringify(d.reasons)).toBe('allow');
      expect(d.accesses.length).toBeGreaterThan(0);
    });
  }

  it('every default tool is covered by a case above or an input/code/patch test below', () => {
    const covered = new Set([
      ...cases.map(([t]) => t),
      'write_stdin',
      'interact_with_process',
      'execute_ipython_cell',
      'apply_patch',
      'shell_execute',
      'execute_shell_command',
      'terminal',
      'shell_exec',
      'run_command',
      'bash',
    ]);
    for (const name of Object.keys(DEFAULT_TOOLS)) expect(covered, name).toContain(name);
  });
});

describe('argv arrays are analysed as argv, exactly', () => {
  it('quotes every element so the words are the argv (no splitting, no ~, no $)', () => {
    expect(argvScript(['cat', "it's a file", '~/x', '$HOME'])).toBe(`'cat' 'it'\\''s a file' '~/x' '$HOME'`);
    expect(argvScript([])).toBeUndefined();
    expect(argvScript(['cat', 1])).toBeUndefined();
    expect(argvScript(['cat', 'a\0b'])).toBeUndefined();
  });

  it('["bash", "-lc", "cat ~/.ssh/id_rsa"] is bash -c: the tilde is the inner shell’s', async () => {
    const d = await decide('shell', { command: ['bash', '-lc', READ_KEY] });
    expect(d.action).toBe('deny');
    expect(d.accesses.map((a) => a.realPath)).toContain(join(home, '.ssh', 'id_rsa'));
  });

  it('["cat", "~/.ssh/id_rsa"] reads the literal ./~/.ssh/id_rsa, as execvp would', async () => {
    const d = await decide('shell', { command: ['cat', '~/.ssh/id_rsa'] });
    expect(d.accesses.map((a) => a.path)).toContain(join(ws, '~', '.ssh', 'id_rsa'));
  });

  it('["cat", "/etc-like/shadow"] is cat of that file; ["cat", "keys/id_rsa"] follows the workspace link', async () => {
    expect((await decide('shell', { command: ['cat', join(etc, 'shadow')] })).action).toBe('deny');
    expect((await decide('shell', { command: ['cat', 'keys/id_rsa'] })).action).toBe('deny');
  });

  it('a string where an argv belongs, an empty argv and non-string elements are uncertain', async () => {
    for (const command of [READ_KEY, [], ['cat', 7], { 0: 'cat' }]) {
      const d = await decide('shell', { command });
      expect(d.action, JSON.stringify(command)).toBe('deny');
      expect(d.accesses.some((a) => !a.certain)).toBe(true);
    }
  });
});

describe('the state the command starts in', () => {
  it('env HOME moves ~ (local_shell env)', async () => {
    const d = await decide('local_shell', {
      action: { type: 'exec', command: ['bash', '-c', 'cat ~/id_rsa'], env: { HOME: join(home, '.ssh') } },
    });
    expect(d.action).toBe('deny');
    expect(d.accesses.map((a) => a.realPath)).toContain(join(home, '.ssh', 'id_rsa'));
  });

  it('env that loads code, a foreign PATH, a function name or a non-string value is uncertain', async () => {
    for (const env of [
      { LD_PRELOAD: join(ws, 'x.so') },
      { BASH_ENV: join(ws, 'rc') },
      { GIT_CONFIG_KEY_0: 'core.pager' },
      { PATH: `${ws}/bin:/usr/bin` },
      { 'BASH_FUNC_ls%%': '() { cat ~/.ssh/id_rsa; }' },
      { HOME: 'relative' },
      { N: 3 },
      'HOME=/etc',
    ]) {
      const d = await decide('local_shell', { action: { type: 'exec', command: ['ls'], env } });
      expect(d.action, JSON.stringify(env)).toBe('deny');
    }
  });

  it('plain env (the host PATH, LANG, CI) is allowed', async () => {
    const env = { PATH: ctx.env.PATH, LANG: 'C.UTF-8', CI: '1' };
    const d = await decide('local_shell', { action: { type: 'exec', command: ['ls', 'src'], env } });
    expect(d.action).toBe('allow');
  });

  it('the working directory argument is where relative paths start', async () => {
    const d = await decide('local_shell', {
      action: { type: 'exec', command: ['cat', 'id_rsa'], working_directory: join(home, '.ssh') },
    });
    expect(d.action).toBe('deny');
    const g = await decide('run_shell_command', { command: 'cat id_rsa', directory: join(home, '.ssh') });
    expect(g.action).toBe('deny');
  });

  it('a directory-like argument the spec does not name is uncertain (the host may run the command there)', async () => {
    const d = await decide('run_shell_command', {
      command: 'cat id_rsa',
      workingDirectory: join(home, '.ssh'),
    });
    expect(d.action).toBe('deny');
    expect(d.accesses.some((a) => !a.certain && a.origin === 'shell:args.workingDirectory')).toBe(true);
  });

  it('an env or shell argument the spec does not name is uncertain; shell: true names no shell', async () => {
    expect((await decide('exec_command', { cmd: 'ls src', env: { LANG: 'C' } })).action).toBe('deny');
    expect((await decide('Bash', { command: 'ls src', shell: 'fish' })).action).toBe('deny');
    expect((await decide('Bash', { command: 'ls src', interpreter: 'python' })).action).toBe('deny');
    expect((await decide('frobnicate', { cmd: 'ls src', shell: true })).action).toBe('allow');
  });

  it('local_shell as another user, or an action type other than exec, is uncertain', async () => {
    expect(
      (await decide('local_shell', { action: { type: 'exec', command: ['ls'], user: 'root' } })).action,
    ).toBe('deny');
    expect((await decide('local_shell', { action: { type: 'spawn', command: ['ls'] } })).action).toBe('deny');
    expect((await decide('local_shell', { action: 'ls' })).action).toBe('deny');
  });
});

describe('the shell that runs a script', () => {
  it('bash, sh, dash and zsh are analysed; zsh-only code-running syntax is uncertain', async () => {
    for (const sh of ['bash', '/bin/sh', 'dash', '/bin/zsh'])
      expect((await decide('exec_command', { cmd: 'ls src', shell: sh })).action, sh).toBe('allow');
    expect((await decide('exec_command', { cmd: READ_KEY, shell: 'zsh' })).action).toBe('deny');
    for (const cmd of ['ls *(e:x:)', 'cat =(ls)', 'echo ${(e)x}', 'ls $~p'])
      expect((await decide('exec_command', { cmd, shell: 'zsh' })).action, cmd).toBe('deny');
  });

  it('other shells (powershell, fish) and a shell binary in the workspace are not analysed: denied', async () => {
    for (const sh of ['pwsh', 'fish', 'powershell.exe', 42])
      expect((await decide('start_process', { command: 'ls src', shell: sh })).action, String(sh)).toBe(
        'deny',
      );
    writeFileSync(join(ws, 'bash'), '#!/bin/sh\n');
    expect((await decide('exec_command', { cmd: 'ls src', shell: join(ws, 'bash') })).action).not.toBe(
      'allow',
    );
  });
});

describe('input into a running process, and code', () => {
  it('write_stdin / interact_with_process / execute_bash is_input: input is uncertain, an empty poll is not', async () => {
    expect((await decide('write_stdin', { session_id: 1, chars: `${READ_KEY}\n` })).action).toBe('deny');
    expect((await decide('write_stdin', { session_id: 1, chars: '' })).action).toBe('allow');
    expect((await decide('interact_with_process', { pid: 4, input: 'ls' })).action).toBe('deny');
    expect((await decide('execute_bash', { command: 'ls', is_input: 'true' })).action).toBe('deny');
    expect((await decide('execute_bash', { command: 'ls', is_input: true })).action).toBe('deny');
    expect((await decide('execute_bash', { command: '' })).action).toBe('allow');
  });

  it('execute_ipython_cell runs Python: uncertain', async () => {
    expect((await decide('execute_ipython_cell', { code: 'open("/etc/shadow").read()' })).action).toBe(
      'deny',
    );
  });
});

describe('apply_patch, which Codex applies itself', () => {
  const patch = (path: string) => `*** Begin Patch\n*** Add File: ${path}\n+x\n*** End Patch\n`;

  it('reads every file header of an envelope', () => {
    const text =
      '*** Begin Patch\n*** Add File: a\n+x\n*** Update File: b\n*** Move to: c\n@@\n-x\n+y\n*** Delete File: d\n*** End Patch';
    // core's parser, the one folder-rules' apply_patch tool uses too.
    expect(parsePatch(text)).toEqual({
      ok: true,
      format: 'codex',
      files: [
        { path: 'a', action: 'add' },
        { path: 'b', action: 'move-from' },
        { path: 'c', action: 'move-to' },
        { path: 'd', action: 'delete' },
      ],
    });
    expect(parsePatch('ls').ok).toBe(false);
  });

  it('argv ["apply_patch", patch] writes the patch’s files', async () => {
    expect((await decide('shell', { command: ['apply_patch', patch(`${etc}/cron.d/x`)] })).action).toBe(
      'deny',
    );
    const ok = await decide('shell', { command: ['apply_patch', patch('src/b.ts')], workdir: ws });
    expect(ok.action).toBe('allow');
    expect(ok.accesses.map((a) => `${a.op} ${a.path}`)).toContain(`write ${join(ws, 'src', 'b.ts')}`);
  });

  it('bash -lc "apply_patch <<EOF" and a patch tool are read the same way', async () => {
    const heredoc = `apply_patch <<'EOF'\n${patch(`${etc}/cron.d/x`)}EOF\n`;
    expect((await decide('shell', { command: ['bash', '-lc', heredoc] })).action).toBe('deny');
    expect((await decide('exec_command', { cmd: heredoc })).action).toBe('deny');
    // The `apply_patch` tool itself is folder-rules' (a file tool); a shell tool declared `kind: 'patch'`
    // is read by the same parser here.
    const tools = { my_patch: { commandArg: 'input', kind: 'patch' as const } };
    expect((await decide('my_patch', { input: patch(`${etc}/cron.d/x`) }, { tools })).action).toBe('deny');
    expect((await decide('my_patch', { input: patch('src/c.ts') }, { tools })).action).toBe('allow');
    expect((await decide('my_patch', { input: 'rm -rf /' }, { tools })).action).toBe('deny');
  });

  it('a relative patch path after a cd is uncertain', async () => {
    const d = await decide('shell', {
      command: ['bash', '-lc', `cd ~ && apply_patch <<'EOF'\n${patch('.ssh/x')}EOF`],
    });
    expect(d.action).toBe('deny');
  });
});

describe('tools nobody declared', () => {
  it('finds command-like arguments at the top and one level down, any spelling', () => {
    expect(findCommands({ cmd: 'ls', n: 1 }).map((f) => f.path)).toEqual(['cmd']);
    expect(findCommands({ action: { command: ['ls'] } }).map((f) => f.path)).toEqual(['action.command']);
    expect(findCommands({ commandLine: 'x', Shell_Command: 'y', code: 'z' }).map((f) => f.kind)).toEqual([
      'script',
      'script',
      'code',
    ]);
    expect(findCommands({ query: 'select 1', a: { b: { command: 'deep' } } })).toEqual([]);
  });

  it('a cmd / script / action.command / commandLine argument is analysed as shell', async () => {
    for (const args of [
      { cmd: READ_KEY },
      { script: READ_KEY },
      { commandLine: READ_KEY },
      { action: { command: ['cat', join(home, '.ssh', 'id_rsa')] } },
      { params: { cmd: writeCron() } },
      { commands: ['ls src', READ_KEY] },
    ])
      expect((await decide('frobnicate', args)).action, JSON.stringify(args)).toBe('deny');
    for (const args of [
      { cmd: 'ls src' },
      { commands: ['ls src', 'git status'] },
      { action: { command: ['git', 'status'] } },
    ])
      expect((await decide('frobnicate', args)).action, JSON.stringify(args)).toBe('allow');
  });

  it('an argv under its own name, or a program with its args beside it, is executed as that argv', async () => {
    expect((await decide('launch', { argv: ['cat', join(home, '.ssh', 'id_rsa')] })).action).toBe('deny');
    expect((await decide('launch', { program: 'cat', args: ['keys/id_rsa'] })).action).toBe('deny');
    expect((await decide('launch', { executable: 'cat', arguments: [7] })).action).toBe('deny');
    const ok = await decide('launch', { program: 'ls', args: ['src'] });
    expect(ok.action).toBe('allow');
    expect(ok.accesses.map((a) => a.path)).toContain(join(ws, 'src'));
  });

  it('case variants and MCP-prefixed names of known tools are caught too', async () => {
    expect((await decide('Run_Shell_Command', { command: READ_KEY })).action).toBe('deny');
    expect((await decide('mcp__other_server__execute_command', { command: READ_KEY })).action).toBe('deny');
  });

  it('their other path-like arguments are writes the policy judges (the command may get them)', async () => {
    const d = await decide('run_script', { command: 'ls', file: join(home, '.ssh', 'id_rsa') });
    expect(d.action).toBe('deny');
    expect(d.accesses.map((a) => `${a.op} ${a.realPath}`)).toContain(`write ${join(home, '.ssh', 'id_rsa')}`);
    const ok = await decide('run_script', { command: 'ls', target: 'src/out.txt', input: 'text for stdin' });
    expect(ok.action).toBe('allow');
    expect(ok.accesses.map((a) => a.path)).toEqual(expect.arrayContaining([join(ws, 'src', 'out.txt')]));
    expect(ok.accesses.map((a) => a.path)).not.toContain(join(ws, 'text for stdin'));
  });

  it('code of another language and shapes nothing can run are uncertain', async () => {
    expect((await decide('evaluate', { code: 'import os' })).action).toBe('deny');
    expect((await decide('frobnicate', { cmd: [{ argv: 'ls' }] })).action).toBe('deny');
  });

  it('notShell tools, and tools without command-like arguments, are left alone', async () => {
    expect(
      (await decide('db_query', { command: 'cat ~/.ssh/id_rsa' }, { notShell: ['db_query'] })).accesses,
    ).toEqual([]);
    expect((await decide('SlashCommand', { command: '/review' })).accesses).toEqual([]);
    expect((await decide('web_search', { query: 'cat ~/.ssh/id_rsa' })).accesses).toEqual([]);
  });
});

describe('options', () => {
  it('adds tools with argv form, env and nested base', async () => {
    const options = {
      tools: { runner: { commandArg: 'argv', form: 'argv' as const, base: 'job', envArg: 'vars' } },
    };
    const d = await decide(
      'runner',
      { job: { argv: ['bash', '-c', 'cat ~/id_rsa'], vars: { HOME: join(home, '.ssh') } } },
      options,
    );
    expect(d.action).toBe('deny');
    expect((await decide('runner', { job: { argv: ['ls', 'src'] } }, options)).action).toBe('allow');
  });

  it('rejects misspelt fields, bad values and a tool both shell and notShell, naming the field', () => {
    expect(() => shell({ tools: { x: { commandArg: 'c', cwdArgs: 'd' } as never } })).toThrow(
      /tools\.x\.cwdArgs/,
    );
    expect(() => shell({ tools: { x: { commandArg: 'c', form: 'list' as never } } })).toThrow(
      /tools\.x\.form.*"list"/,
    );
    expect(() => shell({ tools: { x: { commandArg: '' } } })).toThrow(/tools\.x\.commandArg/);
    expect(() => shell({ notShell: ['Bash'] })).toThrow(/notShell/);
    expect(() => shell({ notShell: 'x' as never })).toThrow(/notShell/);
  });
});
