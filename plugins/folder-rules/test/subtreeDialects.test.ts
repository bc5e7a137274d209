import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallContext, createGuard, type GuardPlugin, Stage } from '@toolgate/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type DialectName, folderRules } from '../src/index.js';

// Every dialect judges subtrees by what exists beneath them: the same call flips from allow to deny when
// the file or directory a rule forbids appears (twins), on real trees. The dialect fixtures (conformance)
// use virtual paths and the worst case; these use the walk.
let root: string;
let ws: string;
let home: string;
let ctx: CallContext;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-fr-dialects-')));
  ws = join(root, 'ws');
  home = join(root, 'home');
  mkdirSync(join(ws, 'src'), { recursive: true });
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(ws, 'src', 'a.ts'), '');
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'k');
  ctx = { sessionId: 's', agentId: 'a', cwd: ws, workspace: ws, home, env: { HOME: home } };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Emits one subtree access as the shell plugin would for `program -r … path`. */
function shell(op: 'read' | 'list' | 'write', path: string, followLinks = false): GuardPlugin {
  return {
    name: 'test-shell',
    apply(hooks) {
      hooks.collectAccesses.tap({ stage: Stage.EXTRACT }, (accesses, _call, state) => {
        state.claim('shell');
        const a = state.access(path, op, { origin: 'shell:grep:argv', scope: 'subtree' });
        if (followLinks) a.followLinks = true;
        return [...accesses, a];
      });
    },
  };
}

async function viaShell(
  dialect: DialectName,
  source: string,
  op: 'read' | 'list' | 'write',
  path: string,
  follow = false,
) {
  const guard = createGuard({
    plugins: [shell(op, path, follow), folderRules({ dialect, source, file: `policy.${dialect}` })],
  });
  return guard.check({ tool: 'Bash', args: { command: `grep -r x ${path}` } }, ctx);
}

async function viaTool(dialect: DialectName, source: string, tool: string, path: string) {
  const guard = createGuard({ plugins: [folderRules({ dialect, source, file: `policy.${dialect}` })] });
  return guard.check({ tool, args: { path } }, ctx);
}

describe('existence-aware subtrees in every dialect', () => {
  it('toolgate: **/.env deny — Grep of the workspace flips when .env appears; directory_tree never', async () => {
    const src = `rules:\n  - { pattern: "<workspace>/**", access: write }\n  - { pattern: "**/.env", access: deny }\n`;
    expect((await viaTool('toolgate', src, 'Grep', ws)).action).toBe('allow');
    writeFileSync(join(ws, 'src', '.env'), '');
    const d = await viaTool('toolgate', src, 'Grep', ws);
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.reason).toBe(
      `Grep would read ${join(ws, 'src', '.env')}: path matches deny rule **/.env`,
    );
    expect((await viaTool('toolgate', src, 'directory_tree', ws)).action).toBe('allow');
    expect((await viaTool('toolgate', src, 'search_files', ws)).action).toBe('allow');
  });

  it('openfang: deny_paths **/.env — tar of the workspace flips when .env appears', async () => {
    const src = `[file_policy]\ndefault = "deny"\ndeny_paths = ["**/.env", "**/.ssh/**"]\nwrite_paths = ["<workspace>/**"]\n`;
    expect((await viaShell('openfang', src, 'read', ws)).action).toBe('allow');
    writeFileSync(join(ws, '.env'), '');
    expect((await viaShell('openfang', src, 'read', ws)).action).toBe('deny');
    expect((await viaShell('openfang', src, 'list', ws)).action).toBe('allow');
    // A .ssh directory appearing beneath is denied even to a listing (it is a directory beneath).
    mkdirSync(join(ws, 'src', '.ssh'));
    expect((await viaShell('openfang', src, 'list', ws)).action).toBe('deny');
  });

  it('wunderland: a block rule (!dir/*) — the subtree flips when the blocked dir exists', async () => {
    const src = JSON.stringify({
      defaultPolicy: 'deny',
      inheritFromTier: false,
      rules: [
        { pattern: `!${ws}/secret/*`, read: false, write: false },
        { pattern: `${ws}/**`, read: true, write: true },
      ],
    });
    expect((await viaShell('wunderland', src, 'read', ws)).action).toBe('allow');
    mkdirSync(join(ws, 'secret'));
    writeFileSync(join(ws, 'secret', 'k'), '');
    const d = await viaShell('wunderland', src, 'read', ws);
    expect(d.action).toBe('deny');
    expect(d.envelope?.path).toMatch(/\/ws\/secret/);
  });

  it('hermes: terminal denied_paths — the walk finds the denied dir beneath an allowed path', async () => {
    const src = `tools:\n  terminal:\n    allowed_paths: [${ws}]\n    denied_paths: [${ws}/private]\n  file:\n    allowed_read_paths: [${ws}]\n    allowed_write_paths: [${ws}]\n`;
    expect((await viaShell('hermes', src, 'read', ws)).action).toBe('allow');
    mkdirSync(join(ws, 'private'));
    expect((await viaShell('hermes', src, 'read', ws)).action).toBe('deny');
    expect((await viaShell('hermes', src, 'list', ws)).action).toBe('deny');
  });

  it('folderguard: a link beneath a read path to outside flips a followed read, never an unfollowed one', async () => {
    const src = JSON.stringify({ readPaths: [ws], writePaths: [] });
    expect((await viaShell('folderguard', src, 'read', ws, true)).action).toBe('allow');
    symlinkSync(join(home, '.ssh'), join(ws, 'keys'));
    expect((await viaShell('folderguard', src, 'read', ws, false)).action).toBe('allow');
    const d = await viaShell('folderguard', src, 'read', ws, true);
    expect(d.action).toBe('deny');
    expect(d.envelope?.path).toBe(join(home, '.ssh'));
  });

  it('wolo: reads (and so listings) are never guarded; a subtree write is judged by its root', async () => {
    const src = `path_safety:\n  allowed_write_paths: [${ws}]\n`;
    writeFileSync(join(ws, '.env'), '');
    symlinkSync(join(home, '.ssh'), join(ws, 'keys'));
    expect((await viaShell('wolo', src, 'read', ws, true)).action).toBe('allow');
    expect((await viaShell('wolo', src, 'list', home)).action).toBe('allow');
    expect((await viaShell('wolo', src, 'write', ws)).action).toBe('allow');
  });
});
