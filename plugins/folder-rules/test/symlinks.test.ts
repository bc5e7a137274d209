import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallContext, createGuard } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { folderRules } from '../src/index.js';

// Real files and symlinks in a temp dir: the decision is made on where the operation really lands.
let root: string;
let ws: string;
let ctx: CallContext;
let guard: ReturnType<typeof createGuard>;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-fr-links-')));
  ws = join(root, 'ws');
  const home = join(root, 'home');
  mkdirSync(join(ws, 'src'), { recursive: true });
  mkdirSync(join(home, '.ssh'), { recursive: true });
  mkdirSync(join(root, 'elsewhere', 'dir'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'k');
  writeFileSync(join(ws, 'src', 'a.ts'), '');
  symlinkSync(join(home, '.ssh'), join(ws, 'notes'));
  symlinkSync(join(home, '.ssh', 'id_rsa'), join(ws, 'innocent.txt'));
  symlinkSync(join(root, 'elsewhere', 'dir'), join(ws, 'sub'));
  symlinkSync(join(root, 'does-not-exist', 'x'), join(ws, 'dangling'));
  // The workspace reached through a link: patterns on <workspace> must still match real paths.
  symlinkSync(ws, join(root, 'ws-link'));
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

const check = (tool: string, args: Record<string, unknown>, c: CallContext = ctx) =>
  guard.check({ tool, args }, c);

describe('symlinks (real ones)', () => {
  it('a link to a denied directory is judged by its target', async () => {
    const d = await check('read_file', { path: 'notes/id_rsa' });
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.reason).toMatch(/deny rule ~\/\.ssh/);
  });

  it('a link to a denied file is judged by its target', async () => {
    expect((await check('read_file', { path: 'innocent.txt' })).action).toBe('deny');
  });

  it('`sub/../x` follows the link before the `..` (kernel semantics): lands outside the workspace', async () => {
    const d = await check('write_file', { path: 'sub/../x' });
    expect(d.accesses[0]?.realPath).toBe(join(root, 'elsewhere', 'x'));
    expect(d.action).toBe('deny');
  });

  it('a dangling link is judged where its target would be created', async () => {
    const d = await check('write_file', { path: 'dangling' });
    expect(d.accesses[0]?.realPath).toBe(join(root, 'does-not-exist', 'x'));
    expect(d.action).toBe('deny');
  });

  it('deleting a link acts on the link itself, inside the workspace', async () => {
    const d = await check('delete_workspace_file', { filepath: 'notes' });
    expect(d.accesses[0]?.onLink).toBe(true);
    expect(d.action).toBe('allow');
  });

  it('moving a link away moves the link, not its target; the destination is still checked', async () => {
    expect((await check('move_file', { source: 'innocent.txt', destination: 'src/b' })).action).toBe('allow');
    expect(
      (await check('move_file', { source: 'src/a.ts', destination: 'notes/authorized_keys' })).action,
    ).toBe('deny');
  });

  it('a workspace reached through a symlink still matches <workspace> rules', async () => {
    const linked = join(root, 'ws-link');
    const c = { ...ctx, cwd: linked, workspace: linked };
    expect((await check('write_file', { path: 'src/new.ts' }, c)).action).toBe('allow');
    expect((await check('write_file', { path: join(ws, 'src', 'new.ts') }, c)).action).toBe('allow');
  });

  it('a link created between two calls is seen by the second (no cross-call cache)', async () => {
    const target = join(ws, 'later');
    expect((await check('read_file', { path: 'later/id_rsa' })).action).toBe('allow');
    symlinkSync(join(ctx.home, '.ssh'), target);
    expect((await check('read_file', { path: 'later/id_rsa' })).action).toBe('deny');
  });
});
