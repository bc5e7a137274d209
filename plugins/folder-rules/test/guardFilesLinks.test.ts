import {
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallContext, createGuard } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { folderRules } from '../src/index.js';

// Attacks on the guard-files check's shortcuts: the guard paths' real forms are looked up on every call
// (never remembered from an earlier one), with one lstat per component beneath the directories the call's own
// path proved real. Every rule here allows writing anywhere: only the guard files stand in the way. Each
// attack has an allowed twin that looks like it.
let root: string;
let ws: string;
let home: string;
let ctx: CallContext;
let guard: ReturnType<typeof createGuard>;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-fr-guard-links-')));
  ws = join(root, 'ws');
  home = join(root, 'home');
  mkdirSync(join(ws, '.claude', 'commands'), { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(ws, '.claude', 'settings.json'), '{}');
  ctx = { sessionId: 's', agentId: 'a', cwd: ws, workspace: ws, home, env: { HOME: home } };
  guard = createGuard({
    plugins: [folderRules({ default: 'write', rules: [{ pattern: '<workspace>/**', access: 'write' }] })],
  });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const write = async (path: string, c: CallContext = ctx) => {
  const d = await guard.check({ tool: 'write_file', args: { path, content: 'x' } }, c);
  return d.action === 'allow' ? 'allow' : `${d.action} ${d.reasons[0]?.code}`;
};

describe('guard files through symlinks, looked up afresh on every call', () => {
  it('a link created between two calls, pointing at a guard file, is denied on the second call', async () => {
    const sneaky = join(ws, 'sneaky.json');
    expect(await write(sneaky)).toBe('allow');
    symlinkSync(join(ws, '.claude', 'settings.json'), sneaky);
    expect(await write(sneaky)).toBe('deny GUARD_FILE');
    // Twin: a link to an ordinary file beside it.
    const notes = join(ws, 'notes.json');
    symlinkSync(join(ws, '.claude', 'commands', 'x.md'), notes);
    expect(await write(notes)).toBe('allow');
    unlinkSync(sneaky);
    unlinkSync(notes);
  });

  it('a guard directory made a link between two calls: the file it now holds is a guard file, and not after', async () => {
    const dot = join(ws, 'dot');
    mkdirSync(dot);
    const target = join(dot, 'settings.json');
    expect(await write(target)).toBe('allow');
    symlinkSync(dot, join(home, '.claude')); // ~/.claude -> <ws>/dot: ~/.claude/settings.json is <ws>/dot/settings.json
    expect(await write(target)).toBe('deny GUARD_FILE');
    expect(await write(join(dot, 'other.json'))).toBe('allow');
    unlinkSync(join(home, '.claude'));
    // No stale answer the other way either: the link is gone, so is the guard.
    expect(await write(target)).toBe('allow');
  });

  it('a link in an intermediate directory of a guard path: the real file behind it is guarded', async () => {
    const real = join(ws, 'gem-real');
    mkdirSync(real);
    symlinkSync(real, join(ws, '.gemini'));
    expect(await write(join(real, 'settings.json'))).toBe('deny GUARD_FILE');
    expect(await write(join(real, 'notes.json'))).toBe('allow');
    unlinkSync(join(ws, '.gemini'));
    expect(await write(join(real, 'settings.json'))).toBe('allow');
  });

  it('a link in an intermediate directory of the accessed path: the guard file reached through it is denied', async () => {
    symlinkSync(join(ws, '.claude'), join(ws, 'via'));
    expect(await write(join(ws, 'via', 'settings.local.json'))).toBe('deny GUARD_FILE');
    expect(await write(join(ws, 'via', 'commands', 'y.md'))).toBe('allow');
    unlinkSync(join(ws, 'via'));
  });

  it('a dangling link as a guard file: writing its target would create the hook settings', async () => {
    mkdirSync(join(home, '.gemini'));
    symlinkSync(join(ws, 'planted.json'), join(home, '.gemini', 'settings.json'));
    expect(await write(join(ws, 'planted.json'))).toBe('deny GUARD_FILE');
    expect(await write(join(ws, 'planted2.json'))).toBe('allow');
    rmSync(join(home, '.gemini'), { recursive: true });
    expect(await write(join(ws, 'planted.json'))).toBe('allow');
  });

  it('a workspace named through a link: the real and the linked name of its settings are both guarded', async () => {
    symlinkSync(ws, join(root, 'ws-link'));
    const linked = { ...ctx, cwd: join(root, 'ws-link'), workspace: join(root, 'ws-link') };
    expect(await write(join(ws, '.claude', 'settings.json'), linked)).toBe('deny GUARD_FILE');
    expect(await write(join(root, 'ws-link', '.claude', 'settings.json'), linked)).toBe('deny GUARD_FILE');
    expect(await write(join(ws, '.claude', 'commands', 'z.md'), linked)).toBe('allow');
    unlinkSync(join(root, 'ws-link'));
  });

  it('a link loop on a guard path fails no write elsewhere', async () => {
    mkdirSync(join(home, '.claude'));
    symlinkSync(join(home, '.claude', 'loop'), join(home, '.claude', 'settings.json'));
    symlinkSync(join(home, '.claude', 'settings.json'), join(home, '.claude', 'loop'));
    expect(await write(join(ws, 'ordinary.txt'))).toBe('allow');
    expect(await write(join(home, '.claude', 'notes.md'))).toBe('allow');
    rmSync(join(home, '.claude'), { recursive: true });
  });
});
