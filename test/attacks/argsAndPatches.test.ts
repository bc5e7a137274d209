import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallContext, createGuard } from '@toolgate/core';
import { folderRules } from '@toolgate/folder-rules';
import { shell } from '@toolgate/shell';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Issue 17 across plugins: folder-rules finds file-tool paths at any depth, the shell plugin owns shell
// tools, and both read patches with core's one parser — so a call is judged once, the same way, whichever
// form carries it. Real files and symlinks in a temp dir.
let root: string;
let ws: string;
let home: string;
let ctx: CallContext;
let guard: ReturnType<typeof createGuard>;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-args-patches-')));
  ws = join(root, 'ws');
  home = join(root, 'home');
  mkdirSync(join(ws, 'src'), { recursive: true });
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'authorized_keys'), 'k\n');
  writeFileSync(join(ws, 'src', 'a.ts'), 'a\n');
  symlinkSync(join(home, '.ssh'), join(ws, 'keys'));
  ctx = { sessionId: 's', agentId: 'a', cwd: ws, workspace: ws, home, env: { HOME: home } };
  guard = createGuard({
    plugins: [
      shell(),
      folderRules({
        rules: [
          { pattern: '<workspace>/**', access: 'write' },
          { pattern: '~/.ssh/**', access: 'deny' },
        ],
      }),
    ],
  });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const check = (tool: string, args: Record<string, unknown>) =>
  guard.check({ tool, args }, ctx, { resolvePrompts: false });
const envelope = (path: string) => `*** Begin Patch\n*** Update File: ${path}\n@@\n-a\n+b\n*** End Patch\n`;

describe('shell tools stay the shell plugin’s', () => {
  it('a command string is analysed as a command, never judged as a path', async () => {
    const ok = await check('bash', { command: 'cat src/a.ts' });
    expect(ok.action).toBe('allow');
    expect(ok.accesses.every((a) => a.origin.startsWith('shell:'))).toBe(true);
    expect((await check('bash', { command: 'cat ~/.ssh/authorized_keys' })).action).toBe('deny');
    // An undeclared tool carrying a command is a shell call; its other path arguments (any depth) too.
    const run = await check('runner', { command: 'ls', opts: { output_file: '~/.ssh/authorized_keys' } });
    expect(run.action).toBe('deny');
    expect(run.accesses.some((a) => a.origin.startsWith('folder-rules:'))).toBe(false);
  });
});

describe('one patch parser, every form', () => {
  it('apply_patch tool, Codex shell argv, exec_command heredoc: the same targets, judged once', async () => {
    const forms: [string, (p: string) => Record<string, unknown>][] = [
      ['apply_patch', (p) => ({ input: envelope(p) })],
      ['tool_apply_patch', (p) => ({ input: envelope(p) })],
      ['shell', (p) => ({ command: ['apply_patch', envelope(p)], workdir: ws })],
      ['exec_command', (p) => ({ cmd: `apply_patch <<'EOF'\n${envelope(p)}EOF\n`, workdir: ws })],
    ];
    for (const [tool, args] of forms) {
      const attack = await check(tool, args('keys/authorized_keys'));
      expect(attack.action, tool).toBe('deny');
      expect(attack.reasons[0]?.access?.realPath, tool).toBe(join(home, '.ssh', 'authorized_keys'));
      const twin = await check(tool, args('src/a.ts'));
      expect(twin.action, tool).toBe('allow');
      const writes = twin.accesses.filter((a) => a.op === 'write' && a.path === join(ws, 'src', 'a.ts'));
      expect(writes, tool).toHaveLength(1);
    }
  });

  it('a patch that does not parse is denied in every form', async () => {
    const bad = '*** Begin Patch\n*** Update File: src/a.ts\nnot a hunk line\n*** End Patch\n';
    for (const [tool, args] of [
      ['apply_patch', { input: bad }],
      ['shell', { command: ['apply_patch', bad], workdir: ws }],
      ['exec_command', { cmd: `apply_patch <<'EOF'\n${bad}EOF\n`, workdir: ws }],
    ] as const) {
      const d = await check(tool, args);
      expect(d.action, tool).toBe('deny');
      expect(d.reasons[0]?.reason, tool).toMatch(/does not parse/);
    }
  });
});
