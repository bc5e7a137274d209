import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallContext, createGuard } from '@toolgate/core';
import { folderRules, loadPolicy } from '@toolgate/folder-rules';
import { shell } from '@toolgate/shell';
import { describe, expect, it } from 'vitest';

// Seed 003 (Hermes `tools.*.allowed_paths`), each behaviour through the public API with the real shell
// plugin, each test quoting the sentence it implements.
const root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-hermes-')));
const ws = join(root, 'ws');
const home = join(root, 'home');
mkdirSync(join(ws, 'secret'), { recursive: true });
mkdirSync(home, { recursive: true });
writeFileSync(join(ws, 'env.sh'), 'export A=1\n');
const ctx: CallContext = { sessionId: 's', agentId: 'a', cwd: ws, workspace: ws, home, env: { HOME: home } };

// As the CLI composes it: the dialect's metacharacter setting travels to the shell plugin.
function guardFor(yaml: string) {
  const policy = loadPolicy({ dialect: 'hermes', file: 'config.yaml', source: yaml, env: { HOME: home } });
  const metacharacters = policy.shell?.metacharacters;
  const notShell = policy.shell?.notShell ?? [];
  return createGuard({
    plugins: [shell({ ...(metacharacters ? { metacharacters } : {}), notShell }), folderRules({ policy })],
  });
}
const terminal = (command: string) => ({ tool: 'terminal', args: { command } });
const code = (source: string) => ({ tool: 'code_execution', args: { code: source } });

describe('seed 003: Hermes', () => {
  it('"If allowed_paths / denied_paths is not set → current behavior (no restriction). Zero impact"', async () => {
    for (const yaml of ['{}', 'tools: {}', 'tools: {terminal: {enabled: true}, file: {enabled: true}}']) {
      const guard = guardFor(yaml);
      for (const call of [
        terminal('echo $(cat /etc/hostname)'),
        terminal('eval "$X"'),
        terminal('source ./env.sh'),
        code('import os\nprint(os.listdir("/etc"))'),
        { tool: 'read_file', args: { path: '/etc/hostname' } },
        { tool: 'write_file', args: { path: '/tmp/x', content: '' } },
      ])
        expect((await guard.check(call, ctx)).action, `${yaml} ${JSON.stringify(call)}`).toBe('allow');
    }
  });

  it('"On shell metacharacters that shlex cannot audit … fail-closed by default" once the terminal is scoped', async () => {
    const guard = guardFor(`tools: {terminal: {allowed_paths: [${ws}]}}`);
    const d = await guard.check(terminal('echo $(cat x)'), ctx);
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.code).toBe('SHELL_METACHARACTER');
  });

  it('"allowed_read_paths controls reads": unset, it does not restrict reads; allowed_write_paths still scopes writes', async () => {
    const guard = guardFor(`tools: {file: {allowed_write_paths: [${ws}]}}`);
    expect((await guard.check({ tool: 'read_file', args: { path: '/etc/hostname' } }, ctx)).action).toBe(
      'allow',
    );
    expect(
      (await guard.check({ tool: 'write_file', args: { path: '/etc/x', content: '' } }, ctx)).action,
    ).toBe('deny');
    expect(
      (await guard.check({ tool: 'write_file', args: { path: join(ws, 'a'), content: '' } }, ctx)).action,
    ).toBe('allow');
  });

  it('"an opt-out tools.terminal.allow_metacharacters: true": source and . are analysed, not denied', async () => {
    const guard = guardFor(`tools: {terminal: {allow_metacharacters: true, allowed_paths: [${ws}]}}`);
    for (const cmd of ['source ./env.sh', '. ./env.sh', `source ${ws}/env.sh`])
      expect((await guard.check(terminal(cmd), ctx)).action, cmd).toBe('allow');
    // Analysed, still scoped: sourcing a file outside allowed_paths is a read outside them.
    expect((await guard.check(terminal('source /etc/profile'), ctx)).action).toBe('deny');
  });

  it('"tools.terminal.enabled: true" gives the agent the shell; enabled: false takes every call away, paths or not', async () => {
    const guard = guardFor('tools: {terminal: {enabled: false}, file: {enabled: false}}');
    for (const call of [
      terminal('echo hi'),
      terminal('ls'),
      { tool: 'read_file', args: {} },
      { tool: 'write_file', args: { path: join(ws, 'a'), content: '' } },
    ]) {
      const d = await guard.check(call, ctx);
      expect(d.action, JSON.stringify(call)).toBe('deny');
      expect(d.reasons[0]?.code).toBe('TOOL_DISABLED');
    }
    // A tool that is neither (no path, no command) is not the policy's to disable.
    expect((await guard.check({ tool: 'get_weather', args: { city: 'Oslo' } }, ctx)).action).toBe('allow');
    const codeOff = guardFor('tools: {code_execution: {enabled: false}}');
    expect((await codeOff.check(code('print(1)'), ctx)).reasons[0]?.code).toBe('TOOL_DISABLED');
  });

  it('"filesystem-touching tools (terminal, file, code_execution …)": code_execution is path-scoped, not denied outright', async () => {
    const guard = guardFor(`tools: {terminal: {allowed_paths: [${ws}, /tmp], denied_paths: [${ws}/secret]}}`);
    const allow = [
      'print(1 + 2)',
      `open('${ws}/out.txt', 'w').write('done')`,
      "import shutil\nshutil.copy('/tmp/a', '/tmp/b')",
    ];
    for (const c of allow) expect((await guard.check(code(c), ctx)).action, c).toBe('allow');
    const deny: [string, string][] = [
      ["open('/etc/passwd').read()", 'PATH_DENIED'],
      [`open('${ws}/secret/k').read()`, 'PATH_DENIED'],
      ["import subprocess\nsubprocess.run(['sh', '-c', 'cat /etc/shadow'])", 'PATH_UNCERTAIN'],
      ["p = '/et' + 'c/passwd'\nopen(p)", 'PATH_UNCERTAIN'],
      ["import os\nos.chdir('/')\nopen('etc/passwd')", 'PATH_UNCERTAIN'],
      ["open(f'/etc/{name}')", 'PATH_UNCERTAIN'],
      ['eval(\'open("/etc/passwd")\')', 'PATH_UNCERTAIN'],
      ["getattr(__builtins__, 'open')('/etc/passwd')", 'PATH_UNCERTAIN'],
      ["open('\\x2fetc/passwd')", 'PATH_UNCERTAIN'],
      ['import cfg\nopen(cfg.path)', 'PATH_UNCERTAIN'],
      ["from pathlib import Path\n(Path('/tmp') / '..' / 'etc' / 'passwd').read_text()", 'PATH_UNCERTAIN'],
      ["open('/tmp/' 'x')", 'PATH_UNCERTAIN'],
      ["open(b'/etc/passwd'.decode())", 'PATH_UNCERTAIN'],
      ["from os import system as s\ns('id')", 'PATH_UNCERTAIN'],
      ["import os\nos.symlink('/etc', 'l')", 'PATH_DENIED'],
    ];
    for (const [c, why] of deny) {
      const d = await guard.check(code(c), ctx);
      expect(d.action, c).toBe('deny');
      expect(d.reasons[0]?.code, c).toBe(why);
    }
    // "with an opt-out … allow_metacharacters: true": code that builds paths is then not refused for it,
    // while the literals it names are still judged.
    const optOut = guardFor(`tools: {terminal: {allow_metacharacters: true, allowed_paths: [${ws}]}}`);
    expect((await optOut.check(code("p = 'a' + 'b'\nopen(p)"), ctx)).action).toBe('allow');
    expect((await optOut.check(code("open('/etc/passwd')"), ctx)).action).toBe('deny');
  });

  it('"No changes to tool schemas seen by the LLM": the gateway leaves descriptions alone', () => {
    const guard = guardFor(
      `tools: {terminal: {allowed_paths: [${ws}]}, file: {allowed_write_paths: [${ws}]}}`,
    );
    const tools = [
      { name: 'terminal', description: 'Run a command.', inputSchema: { type: 'object' } },
      { name: 'write_file', description: 'Write a file.', inputSchema: { type: 'object' } },
    ];
    const out = guard.describeTools(tools, { cwd: ws, workspace: ws, home });
    expect(out.map((t) => t.description)).toEqual(['Run a command.', 'Write a file.']);
  });
});

describe('seed 003: Hermes terminal and git status', () => {
  // A real repository: a.txt tracked, secret/ untracked with a key in it, denied by the terminal's list.
  const repo = join(root, 'repo');
  mkdirSync(join(repo, 'secret'), { recursive: true });
  mkdirSync(join(repo, 'src'), { recursive: true });
  writeFileSync(join(repo, 'a.txt'), 'a\n');
  writeFileSync(join(repo, 'src', 'b.ts'), 'b\n');
  writeFileSync(join(repo, 'secret', 'key.pem'), 'k\n');
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', repo, ...args], {
      env: { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1' },
      stdio: 'ignore',
    });
  git('init', '-q');
  git('add', 'a.txt', 'src/b.ts');
  const rctx: CallContext = { ...ctx, cwd: repo, workspace: repo };
  const policy = `tools: {terminal: {allowed_paths: [${repo}], denied_paths: [${repo}/secret]}}`;

  it('"If path is under any denied_paths prefix → reject": git status names no such path — a listing is a read of the directory listed, and an untracked directory is shown as its name only', async () => {
    const guard = guardFor(policy);
    for (const cmd of ['git status', 'git status --short', 'git status -unormal'])
      expect((await guard.check(terminal(cmd), rctx)).action, cmd).toBe('allow');
    // What does read the denied directory is still denied.
    for (const cmd of [
      'git status -uall', // lists the files inside untracked directories
      'git status --untracked-files=all',
      'git -c status.showUntrackedFiles=all status',
      'ls secret',
      'cat secret/key.pem',
    ]) {
      const d = await guard.check(terminal(cmd), rctx);
      expect(d.action, cmd).toBe('deny');
    }
  });

  it('a denied directory that holds tracked files is listed by git status: denied', async () => {
    const guard = guardFor(`tools: {terminal: {allowed_paths: [${repo}], denied_paths: [${repo}/src]}}`);
    expect((await guard.check(terminal('git status'), rctx)).action).toBe('deny');
  });

  it('the repository config can turn the collapsed listing off (status.showUntrackedFiles = all): denied', async () => {
    git('config', 'status.showUntrackedFiles', 'all');
    try {
      expect((await guardFor(policy).check(terminal('git status'), rctx)).action).toBe('deny');
    } finally {
      git('config', '--unset', 'status.showUntrackedFiles');
    }
  });
});
