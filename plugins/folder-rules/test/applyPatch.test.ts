import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallContext, createGuard, parsePatch } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { folderRules } from '../src/index.js';

// Issue 17, item 2: apply_patch / tool_apply_patch (Codex, seed 004: "enumerates AddFile, UpdateFile (incl.
// move_to destination), DeleteFile as Write ops") were not guarded: a patch writing /etc/passwd was allowed.
// Attacks per header form, `..`, real symlinks, moves out of the workspace; each with a benign twin.
let root: string;
let ws: string;
let home: string;
let outside: string;
let ctx: CallContext;
let guard: ReturnType<typeof createGuard>;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-fr-patch-')));
  ws = join(root, 'ws');
  home = join(root, 'home');
  outside = join(root, 'outside');
  mkdirSync(join(ws, 'src'), { recursive: true });
  mkdirSync(join(home, '.ssh'), { recursive: true });
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(home, '.ssh', 'authorized_keys'), 'k\n');
  writeFileSync(join(ws, 'src', 'a.ts'), 'a\n');
  symlinkSync(join(home, '.ssh'), join(ws, 'keys'));
  symlinkSync(join(home, '.ssh', 'authorized_keys'), join(ws, 'innocent.txt'));
  ctx = { sessionId: 's', agentId: 'a', cwd: ws, workspace: ws, home, env: {} };
  guard = createGuard({
    plugins: [
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

const codex = (body: string) => `*** Begin Patch\n${body}\n*** End Patch\n`;
const add = (p: string) => codex(`*** Add File: ${p}\n+x`);
const update = (p: string) => codex(`*** Update File: ${p}\n@@\n-a\n+b`);
const del = (p: string) => codex(`*** Delete File: ${p}`);
const move = (from: string, to: string) => codex(`*** Update File: ${from}\n*** Move to: ${to}\n@@\n-a\n+b`);
const decide = (input: unknown, tool = 'apply_patch', key = 'input') =>
  guard.check({ tool, args: { [key]: input } }, ctx, { resolvePrompts: false });

describe('apply_patch: Codex envelopes', () => {
  it('each header form writing outside the workspace is denied; its twin inside is allowed', async () => {
    const cases: [string, string, string][] = [
      ['Add File', add(`${outside}/x`), add('src/new.ts')],
      ['Update File', update(`${outside}/x`), update('src/a.ts')],
      ['Delete File', del(`${outside}/x`), del('src/a.ts')],
      ['Move to (destination out)', move('src/a.ts', `${outside}/a.ts`), move('src/a.ts', 'src/b.ts')],
      ['Move to (source out)', move(`${outside}/a.ts`, 'src/a.ts'), move('src/b.ts', 'src/c.ts')],
    ];
    for (const tool of ['apply_patch', 'tool_apply_patch', 'mcp__codex__apply_patch']) {
      for (const [form, attack, twin] of cases) {
        const d = await decide(attack, tool);
        expect(d.action, `${tool} ${form}`).toBe('deny');
        expect(d.reasons[0]?.code).toBe('PATH_DENIED');
        expect((await decide(twin, tool)).action, `${tool} ${form} twin`).toBe('allow');
      }
    }
  });

  it('every file of a multi-file patch is a write (a benign first file hides nothing)', async () => {
    const d = await decide(
      codex(`*** Add File: src/ok.ts\n+x\n*** Update File: ${home}/.ssh/authorized_keys\n@@\n-k\n+evil`),
    );
    expect(d.action).toBe('deny');
    expect(d.accesses.map((a) => a.op)).toEqual(['write', 'write']);
  });

  it('`..` paths are resolved: out of the workspace is denied, back into it allowed', async () => {
    expect((await decide(add('../outside/x'))).action).toBe('deny');
    expect((await decide(add('src/../../home/.ssh/authorized_keys'))).action).toBe('deny');
    expect((await decide(add('src/../src/ok.ts'))).action).toBe('allow');
  });

  it('symlinked targets are judged where they land (real links)', async () => {
    expect((await decide(update('keys/authorized_keys'))).action).toBe('deny');
    expect((await decide(update('innocent.txt'))).action).toBe('deny');
    expect((await decide(add('keys/new'))).action).toBe('deny');
    // Deleting a link removes the link, in the workspace; moving it reads through it (denied).
    expect((await decide(del('innocent.txt'))).action).toBe('allow');
    expect((await decide(move('innocent.txt', 'src/stolen'))).action).toBe('deny');
  });

  it('a patch that does not parse is denied (uncertain), whatever it holds', async () => {
    for (const bad of [
      'rm -rf /',
      '*** Begin Patch\n*** Add File: src/x\n+x\n', // no End Patch
      '*** Begin Patch\n*** Add File: src/x\nnot a plus line\n*** End Patch',
      '*** Begin Patch\n*** Move to: src/x\n*** End Patch',
      '*** Begin Patch\n*** Delete File: src/x\n-stray\n*** End Patch',
      '*** Begin Patch\n*** End Patch',
      '--- a/x\n+++ b/x\n',
      '@@ -1 +1 @@\n-a\n+b\n',
      42,
    ]) {
      const d = await decide(bad);
      expect(d.action, String(bad)).toBe('deny');
      expect(d.reasons[0]?.code, String(bad)).toBe('PATH_UNCERTAIN');
    }
    const none = await guard.check({ tool: 'apply_patch', args: {} }, ctx);
    expect(none.action).toBe('deny');
  });

  it('Codex lenient forms: a heredoc wrapper, CRLF line ends, the argv form in `command`', async () => {
    expect((await decide(`<<'EOF'\n${add(`${outside}/x`)}EOF`)).action).toBe('deny');
    expect((await decide(`<<'EOF'\n${add('src/x')}EOF`)).action).toBe('allow');
    expect((await decide(add(`${outside}/x`).replace(/\n/g, '\r\n'))).action).toBe('deny');
    expect((await decide(['apply_patch', add(`${outside}/x`)], 'apply_patch', 'command')).action).toBe(
      'deny',
    );
    expect((await decide(['apply_patch', add('src/x')], 'apply_patch', 'command')).action).toBe('allow');
  });
});

describe('apply_patch: unified diffs', () => {
  const hunk = '@@ -1 +1 @@\n-a\n+b\n';
  it('each header form: ---/+++, /dev/null on either side, git headers, renames, quoted names', async () => {
    const cases: [string, string, string][] = [
      ['plain', `--- a/src/a.ts\n+++ ${outside}/a.ts\n${hunk}`, `--- a/src/a.ts\n+++ b/src/a.ts\n${hunk}`],
      [
        'create',
        `--- /dev/null\n+++ ${outside}/n\n@@ -0,0 +1 @@\n+x\n`,
        '--- /dev/null\n+++ b/src/n\n@@ -0,0 +1 @@\n+x\n',
      ],
      [
        'delete',
        `--- ${home}/.ssh/authorized_keys\n+++ /dev/null\n@@ -1 +0,0 @@\n-k\n`,
        '--- a/src/a.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n',
      ],
      [
        'git rename',
        `diff --git a/src/a.ts b/src/a.ts\nsimilarity index 100%\nrename from src/a.ts\nrename to ../outside/a.ts\n`,
        'diff --git a/src/a.ts b/src/b.ts\nsimilarity index 100%\nrename from src/a.ts\nrename to src/b.ts\n',
      ],
      [
        'git new file',
        `diff --git a/x b/x\nnew file mode 100644\n--- /dev/null\n+++ b/../outside/x\n@@ -0,0 +1 @@\n+x\n`,
        'diff --git a/src/x b/src/x\nnew file mode 100644\n--- /dev/null\n+++ b/src/x\n@@ -0,0 +1 @@\n+x\n',
      ],
      [
        'quoted',
        `--- "a/src/a.ts"\n+++ "${outside}/\\141.ts"\n${hunk}`,
        `--- "a/src/a.ts"\n+++ "b/src/\\141.ts"\n${hunk}`,
      ],
      [
        'symlinked',
        `--- a/keys/authorized_keys\n+++ b/keys/authorized_keys\n${hunk}`,
        `--- a/src/a.ts\n+++ b/src/a.ts\n${hunk}`,
      ],
    ];
    for (const [form, attack, twin] of cases) {
      expect((await decide(attack, 'apply_patch', 'patch')).action, `${form}`).toBe('deny');
      expect((await decide(twin, 'apply_patch', 'patch')).action, `${form} twin`).toBe('allow');
    }
  });

  it('a removed line that reads like a header is content (hunks are counted), and a symlink mode is refused', async () => {
    const text = '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,2 +1 @@\n--- /etc/passwd\n-+++ /etc/passwd\n+x\n';
    const parsed = parsePatch(text);
    expect(parsed.ok && parsed.files.map((f) => f.path)).toEqual(['a/src/a.ts', 'b/src/a.ts']);
    expect((await decide(text, 'apply_patch', 'patch')).action).toBe('allow');
    const link = 'diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+/etc\n';
    expect((await decide(link, 'apply_patch', 'patch')).action).toBe('deny');
  });
});
