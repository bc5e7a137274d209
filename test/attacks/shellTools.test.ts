import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallContext, createGuard } from '@toolgate/core';
import { folderRules, loadPolicy, SHELL_TOOLS } from '@toolgate/folder-rules';
import { KNOWN_NOT_SHELL, KNOWN_TOOLS, shell } from '@toolgate/shell';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Issue 13 class 4 against the default stack (shell + folder-rules, as the CLI composes it): every shell
// tool under its host's name and argument shape, undeclared tools carrying a command, and the agreement
// between the shell plugin's claim and folder-rules' fail-closed check.
const lines = readFileSync(new URL('./fixtures/shell-tools.tsv', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '' && !l.startsWith('#'));

let root: string;
let ws: string;
let home: string;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-shell-tools-')));
  ws = join(root, 'ws');
  home = join(root, 'home');
  mkdirSync(join(ws, 'src'), { recursive: true });
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(ws, 'src', 'app.ts'), 'export {};\n');
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'KEY');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const rules = [
  { pattern: '<workspace>/**', access: 'write' as const },
  { pattern: '~/.ssh/**', access: 'deny' as const },
  { pattern: '/etc/**', access: 'deny' as const },
];

function context(): CallContext {
  return {
    sessionId: 'attack',
    agentId: 'attacker',
    cwd: ws,
    workspace: ws,
    home,
    env: { HOME: home, PATH: '/usr/local/bin:/usr/bin:/bin' },
  };
}

function args(json: string): Record<string, unknown> {
  return JSON.parse(json.replaceAll('@WS@', ws).replaceAll('@HOME@', home)) as Record<string, unknown>;
}

describe('shell tools under other names (fixtures/shell-tools.tsv)', () => {
  it('has at least ten attack variants and their benign twins', () => {
    expect(lines.filter((l) => l.startsWith('deny')).length).toBeGreaterThanOrEqual(10);
    expect(lines.filter((l) => l.startsWith('allow')).length).toBeGreaterThanOrEqual(10);
  });

  for (const line of lines) {
    const [expected, tool, json] = line.split('\t');
    it(`${expected} ${tool} ${json}`, async () => {
      const guard = createGuard({ plugins: [shell(), folderRules({ rules, default: 'deny' })] });
      const d = await guard.check({ tool: tool!, args: args(json!) }, context(), { resolvePrompts: false });
      const why = JSON.stringify({
        reasons: d.reasons.map((r) => `${r.code}: ${r.reason}`),
        accesses: d.accesses.map((a) => `${a.op}${a.certain ? '' : '?'} ${a.realPath ?? a.raw}`),
      });
      expect(d.action, why).toBe(expected);
      // An allowed call was analysed, not waved through (an empty stdin poll touches nothing).
      if (expected === 'allow' && tool !== 'write_stdin') expect(d.accesses.length, why).toBeGreaterThan(0);
    });
  }
});

describe('folder-rules and the shell claim agree', () => {
  it('every tool the shell plugin knows is a shell tool to folder-rules', () => {
    for (const name of Object.keys(KNOWN_TOOLS)) expect(SHELL_TOOLS, name).toContain(name);
  });

  it('without the shell plugin, every shell call — known tool or undeclared tool with a command — is denied', async () => {
    const guard = createGuard({ plugins: [folderRules({ rules, default: 'deny' })] });
    for (const line of lines) {
      const [, tool, json] = line.split('\t');
      const d = await guard.check({ tool: tool!, args: args(json!) }, context(), { resolvePrompts: false });
      expect(d.action, line).toBe('deny');
    }
  });

  it('both plugins read the same command-like keys, and leave the same tools alone', async () => {
    const alone = createGuard({ plugins: [folderRules({ rules, default: 'deny' })] });
    const both = createGuard({ plugins: [shell(), folderRules({ rules, default: 'deny' })] });
    const keys = [
      'command',
      'Commands',
      'cmd',
      'cmdLine',
      'command_line',
      'shellCommand',
      'script',
      'bash',
      'sh',
    ];
    for (const key of keys) {
      const call = { tool: 'frobnicate', args: { [key]: 'cat ~/.ssh/id_rsa' } };
      const a = await alone.check(call, context());
      expect(a.reasons[0]?.reason, key).toMatch(/shell command not analysed/);
      const b = await both.check(call, context());
      expect(b.reasons[0]?.code, key).toBe('PATH_DENIED');
    }
    for (const call of [
      { tool: 'frobnicate', args: { argv: ['ls'] } },
      { tool: 'frobnicate', args: { program: 'ls' } },
      { tool: 'frobnicate', args: { code: 'x' } },
    ])
      expect((await alone.check(call, context())).reasons[0]?.reason).toMatch(/shell command not analysed/);
    for (const name of KNOWN_NOT_SHELL) {
      const d = await alone.check({ tool: name, args: { command: 'review' } }, context());
      // Patch tools are no shell tools either, but "review" is no patch: denied as unparsable.
      const patchTool = name === 'apply_patch' || name === 'tool_apply_patch';
      expect(d.action, name).toBe(patchTool ? 'deny' : 'allow');
      if (patchTool) expect(d.reasons[0]?.reason).toMatch(/does not parse/);
    }
  });

  it('file editors whose command is a sub-operation are judged on their path, not as shell', async () => {
    const guard = createGuard({
      plugins: [shell(), folderRules({ rules, default: 'deny', unknownTools: 'allow' })],
    });
    for (const tool of ['str_replace_editor', 'str_replace_based_edit_tool', 'memory']) {
      const ok = await guard.check(
        { tool, args: { command: 'view', path: join(ws, 'src', 'app.ts') } },
        context(),
      );
      expect(ok.action, tool).toBe('allow');
      expect(
        ok.accesses.every((a) => a.origin.startsWith('folder-rules:')),
        tool,
      ).toBe(true);
      const no = await guard.check({ tool, args: { command: 'view', path: '~/.ssh/id_rsa' } }, context());
      expect(no.reasons[0]?.code, tool).toBe('PATH_DENIED');
    }
  });

  it('a tool the policy declares is judged as declared by both plugins (no shell analysis, no shell deny)', async () => {
    const tools = { db_query: { op: 'none' as const } };
    const guard = createGuard({
      plugins: [shell({ notShell: ['db_query'] }), folderRules({ rules, default: 'deny', tools })],
    });
    const d = await guard.check({ tool: 'db_query', args: { command: 'SELECT 1' } }, context());
    expect(d.action).toBe('allow');
    expect(d.accesses).toEqual([]);
  });
});

describe('the native policy extends the table (shell.tools, shell.notShell)', () => {
  const policyText = (shellBlock: string) =>
    [
      'default: deny',
      'rules:',
      '  - { pattern: "<workspace>/**", access: write }',
      '  - { pattern: "~/.ssh/**", access: deny }',
      shellBlock,
      '',
    ].join('\n');

  it('loads a tool spec and a notShell list; folder-rules classifies the added tool as shell', async () => {
    const policy = loadPolicy({
      dialect: 'toolgate',
      source: policyText(
        'shell:\n  tools:\n    job_runner: { commandArg: argv, form: argv, cwdArg: dir }\n  notShell: [db_query]',
      ),
    });
    expect(policy.shell?.tools?.job_runner).toEqual({ commandArg: 'argv', form: 'argv', cwdArg: 'dir' });
    expect(policy.shell?.metacharacters).toBeUndefined();
    expect(policy.tools.job_runner).toEqual({ op: 'shell' });
    const guard = createGuard({
      plugins: [
        shell({ tools: { ...policy.shell?.tools }, notShell: policy.shell?.notShell ?? [] }),
        folderRules({ policy }),
      ],
    });
    const bad = await guard.check(
      { tool: 'job_runner', args: { argv: ['cat', 'id_rsa'], dir: join(home, '.ssh') } },
      context(),
    );
    expect(bad.action).toBe('deny');
    const ok = await guard.check({ tool: 'job_runner', args: { argv: ['ls', 'src'] } }, context());
    expect(ok.action).toBe('allow');
    const sql = await guard.check({ tool: 'db_query', args: { command: 'SELECT 1' } }, context());
    expect(sql.action).toBe('allow');
    // Without the shell plugin the added tool is still a shell tool: denied, never allowed unanalysed.
    const alone = createGuard({ plugins: [folderRules({ policy })] });
    expect((await alone.check({ tool: 'job_runner', args: { argv: ['ls'] } }, context())).action).toBe(
      'deny',
    );
  });

  it('a narrowOnly overlay cannot widen through notShell or by removing a shell tool', () => {
    const overlay = (block: string) =>
      loadPolicy({
        dialect: 'toolgate',
        source: policyText(`agents:\n  sub:\n    narrowOnly: true\n    ${block}`),
        agent: 'sub',
      });
    expect(() => overlay('shell: { notShell: [Bash] }')).toThrow(/agents\.sub\.shell\.notShell/);
    expect(() => overlay('shell: { tools: { Bash: false } }')).toThrow(/agents\.sub\.shell\.tools\.Bash/);
    expect(overlay('shell: { tools: { job: { commandArg: cmd } } }').tools.job).toEqual({ op: 'shell' });
  });

  it('an overlay that adds shell tools keeps the base metacharacter mode and tools', () => {
    const policy = loadPolicy({
      dialect: 'toolgate',
      source: policyText(
        'shell: { metacharacters: deny, tools: { a: { commandArg: c } } }\nagents:\n  sub:\n    shell: { tools: { b: { commandArg: c } } }',
      ),
      agent: 'sub',
    });
    expect(policy.shell?.metacharacters).toBe('deny');
    expect(Object.keys(policy.shell?.tools ?? {}).sort()).toEqual(['a', 'b']);
  });

  it('rejects a misspelt field, a bad form and a tool in both lists, naming file, field and value', () => {
    expect(() =>
      loadPolicy({ dialect: 'toolgate', source: policyText('shell:\n  tools:\n    x: { comandArg: c }') }),
    ).toThrow(/shell\.tools\.x/);
    expect(() =>
      loadPolicy({
        dialect: 'toolgate',
        source: policyText('shell:\n  tools:\n    x: { commandArg: c, form: list }'),
      }),
    ).toThrow(/shell\.tools\.x\.form/);
    expect(() =>
      loadPolicy({
        dialect: 'toolgate',
        source: policyText('shell:\n  tools:\n    x: { commandArg: c }\n  notShell: [x]'),
      }),
    ).toThrow(/shell\.notShell.*x/);
  });
});
