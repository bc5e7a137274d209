import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { isWithin, resolvePath, ToolgateError } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let root: string;
let ws: string;
const ctx = () => ({
  cwd: ws,
  workspace: ws,
  home: join(root, 'home'),
  env: { PROJECT: join(root, 'ws'), EMPTY: '' } as Record<string, string>,
});

beforeAll(() => {
  // realpath: tmpdir may itself sit behind a symlink on some systems.
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-resolve-')));
  ws = join(root, 'ws');
  mkdirSync(join(ws, 'sub'), { recursive: true });
  mkdirSync(join(root, 'elsewhere', 'dir'), { recursive: true });
  mkdirSync(join(root, 'home', '.ssh'), { recursive: true });
  writeFileSync(join(root, 'home', '.ssh', 'id_rsa'), 'secret');
  writeFileSync(join(ws, 'file.txt'), 'x');
  symlinkSync('/etc', join(ws, 'etc-link'));
  symlinkSync(join(root, 'elsewhere', 'dir'), join(ws, 'out'));
  symlinkSync('chain2', join(ws, 'chain1'));
  symlinkSync('chain3', join(ws, 'chain2'));
  symlinkSync(join(root, 'home', '.ssh'), join(ws, 'chain3'));
  symlinkSync(join(root, 'nowhere', 'target'), join(ws, 'dangling'));
  symlinkSync('loop-b', join(ws, 'loop-a'));
  symlinkSync('loop-a', join(ws, 'loop-b'));
  symlinkSync('file.txt', join(ws, 'file-link'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('resolvePath: expansion', () => {
  it('expands ~ to the context home, never the process HOME', () => {
    const r = resolvePath('~/.ssh/id_rsa', ctx());
    expect(r.real).toBe(join(root, 'home', '.ssh', 'id_rsa'));
    expect(r.certain).toBe(true);
    expect(r.exists).toBe(true);
  });

  it('expands ~user from the user database, and an unknown user is uncertain', () => {
    const me = userInfo();
    const known = resolvePath(`~${me.username}/x`, ctx());
    expect(known.certain).toBe(true);
    expect(known.lexical).toBe(join(me.homedir, 'x'));
    const unknown = resolvePath('~no-such-user-xyz/x', ctx());
    expect(unknown.certain).toBe(false);
    expect(unknown.real).toBeNull();
    expect(unknown.reason).toMatch(/unknown user/);
  });

  it('expands $VAR and ${VAR} from ctx.env; unset is uncertain; other forms are uncertain', () => {
    expect(resolvePath('$PROJECT/file.txt', ctx()).real).toBe(join(ws, 'file.txt'));
    expect(resolvePath('${PROJECT}/file.txt', ctx()).real).toBe(join(ws, 'file.txt'));
    const unset = resolvePath('$NOPE/x', ctx());
    expect(unset.certain).toBe(false);
    expect(unset.reason).toMatch(/NOPE/);
    expect(resolvePath('${PROJECT:-/etc}/x', ctx()).certain).toBe(false);
    expect(resolvePath('$(whoami)/x', ctx()).certain).toBe(false);
    expect(resolvePath('$1/x', ctx()).certain).toBe(false);
  });

  it('substitutes <workspace> and resolves relative paths against ctx.cwd, not the process cwd', () => {
    expect(resolvePath('<workspace>/file.txt', ctx()).real).toBe(join(ws, 'file.txt'));
    const sub = { ...ctx(), cwd: join(ws, 'sub') };
    expect(resolvePath('../file.txt', sub).real).toBe(join(ws, 'file.txt'));
    expect(resolvePath('file.txt', ctx()).real).not.toBe(join(process.cwd(), 'file.txt'));
  });

  it('rejects non-strings, empty strings and NUL bytes with a clear error', () => {
    for (const bad of [undefined, null, 42, {}, [], '', 'a\0b']) {
      expect(() => resolvePath(bad, ctx())).toThrow(ToolgateError);
    }
    try {
      resolvePath('/etc/passwd\0.txt', ctx());
    } catch (error) {
      expect((error as ToolgateError).code).toBe('TOOLGATE_ERR_INVALID_PATH');
      expect((error as Error).message).toMatch(/NUL/);
    }
  });
});

describe('resolvePath: symlinks with kernel semantics', () => {
  it('follows a link inside the workspace that points at /etc', () => {
    const r = resolvePath('etc-link/passwd', ctx());
    expect(r.lexical).toBe(join(ws, 'etc-link', 'passwd'));
    expect(r.real).toBe('/etc/passwd');
    expect(r.hops).toEqual([{ link: join(ws, 'etc-link'), target: '/etc' }]);
    expect(isWithin(r.real!, ws)).toBe(false);
  });

  it('applies .. after following the link (link/../x is beside the target, not in the workspace)', () => {
    const r = resolvePath('out/../x', ctx());
    expect(r.lexical).toBe(join(ws, 'x'));
    expect(r.real).toBe(join(root, 'elsewhere', 'x'));
  });

  it('follows a chain of links to the end', () => {
    const r = resolvePath('chain1/id_rsa', ctx());
    expect(r.real).toBe(join(root, 'home', '.ssh', 'id_rsa'));
    expect(r.hops.map((h) => h.target)).toEqual(['chain2', 'chain3', join(root, 'home', '.ssh')]);
  });

  it('resolves a dangling link to where its target would be created', () => {
    const r = resolvePath('dangling', ctx());
    expect(r.certain).toBe(true);
    expect(r.exists).toBe(false);
    expect(r.real).toBe(join(root, 'nowhere', 'target'));
  });

  it('reports a link loop as uncertain instead of hanging', () => {
    const r = resolvePath('loop-a/x', ctx());
    expect(r.certain).toBe(false);
    expect(r.real).toBeNull();
    expect(r.reason).toMatch(/loop/);
  });

  it('resolves a new file under a linked directory to the link target', () => {
    const r = resolvePath('out/new/deeper.txt', ctx());
    expect(r.exists).toBe(false);
    expect(r.real).toBe(join(root, 'elsewhere', 'dir', 'new', 'deeper.txt'));
  });

  it('resolves /proc/self/root/etc/passwd to /etc/passwd and treats per-process magic links as uncertain', () => {
    expect(resolvePath('/proc/self/root/etc/passwd', ctx()).real).toBe('/etc/passwd');
    expect(resolvePath('/proc/self/cwd/x', ctx()).certain).toBe(false);
    expect(resolvePath('/proc/self/fd/0', ctx()).certain).toBe(false);
  });

  it('with followFinal: false resolves the link itself (delete, rename), not its target', () => {
    const onLink = resolvePath('etc-link', ctx(), { followFinal: false });
    expect(onLink.real).toBe(join(ws, 'etc-link'));
    expect(onLink.exists).toBe(true);
    // the parent is still resolved, and a trailing slash follows as the kernel does
    expect(resolvePath('out/x', ctx(), { followFinal: false }).real).toBe(
      join(root, 'elsewhere', 'dir', 'x'),
    );
    expect(resolvePath('etc-link/', ctx(), { followFinal: false }).real).toBe('/etc');
  });

  it('keeps the raw, expanded and lexical forms', () => {
    const r = resolvePath('~/../home/./.ssh//id_rsa', ctx());
    expect(r.raw).toBe('~/../home/./.ssh//id_rsa');
    expect(r.expanded).toBe(`${join(root, 'home')}/../home/./.ssh//id_rsa`);
    expect(r.lexical).toBe(join(root, 'home', '.ssh', 'id_rsa'));
  });

  it('goes through a file used as a directory without claiming the path exists', () => {
    const r = resolvePath('file.txt/x', ctx());
    expect(r.exists).toBe(false);
    expect(r.real).toBe(join(ws, 'file.txt', 'x'));
  });

  it('bug: `dangling/.` resolved to the link itself instead of where its target would be created', () => {
    const r = resolvePath('dangling/.', ctx());
    expect(r.real).toBe(join(root, 'nowhere', 'target'));
  });

  it('bug: `file/.` was reported as existing (the kernel answers ENOTDIR)', () => {
    expect(resolvePath('file.txt/.', ctx()).exists).toBe(false);
    expect(resolvePath('file.txt/', ctx()).exists).toBe(false);
  });

  it('never caches across calls: a link created between two calls is seen by the second', () => {
    const before = resolvePath('late/passwd', ctx());
    expect(before.real).toBe(join(ws, 'late', 'passwd'));
    symlinkSync('/etc', join(ws, 'late'));
    const after = resolvePath('late/passwd', ctx());
    expect(after.real).toBe('/etc/passwd');
  });
});

describe('isWithin', () => {
  it('contains by component, never by string prefix', () => {
    expect(isWithin('/ws', '/ws')).toBe(true);
    expect(isWithin('/ws/a/b', '/ws')).toBe(true);
    expect(isWithin('/ws-evil', '/ws')).toBe(false);
    expect(isWithin('/ws-evil/x', '/ws')).toBe(false);
    expect(isWithin('/wsx', '/ws')).toBe(false);
    expect(isWithin('/anything', '/')).toBe(true);
    expect(isWithin('/', '/ws')).toBe(false);
  });
});
