import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Access } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimsOf, isCovered } from './coverage.js';
import { resolveKernelPath } from './resolveKernelPath.js';
import { parseStraceLine, splitArgs, stringArg } from './straceLine.js';
import { listedDirectory, syscallEffects } from './syscallEffects.js';
import type { KernelAccess } from './traceCommand.js';

// The oracle's own parts, on real files: a wrong parse or resolution here would make the oracle lie.

let root: string;
beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-oracle-unit-')));
  mkdirSync(join(root, 'ws/sub'), { recursive: true });
  mkdirSync(join(root, 'out/dir'), { recursive: true });
  writeFileSync(join(root, 'out/secret'), 's');
  writeFileSync(join(root, 'out/dir/x'), 'x');
  symlinkSync('../out/dir', join(root, 'ws/link'));
  symlinkSync('../out/secret', join(root, 'ws/s'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const line = (text: string) => {
  const l = parseStraceLine(text);
  if (l === null) throw new Error(`no parse: ${text}`);
  return l;
};

describe('strace lines', () => {
  it('splits arguments outside strings, brackets and fd annotations', () => {
    expect(splitArgs('AT_FDCWD</a,b>, "x, y", {st_mode=S_IFREG, st_size=3}, 0')).toEqual([
      'AT_FDCWD</a,b>',
      '"x, y"',
      '{st_mode=S_IFREG, st_size=3}',
      '0',
    ]);
  });

  it('decodes C escapes in strings', () => {
    expect(stringArg('"a\\"b\\\\c\\nd\\303\\251"')).toBe('a"b\\c\nd\u00e9');
  });

  it('ignores signal, exit and unfinished lines', () => {
    expect(parseStraceLine('--- SIGCHLD {si_signo=SIGCHLD} ---')).toBeNull();
    expect(parseStraceLine('+++ exited with 0 +++')).toBeNull();
    expect(parseStraceLine('openat(AT_FDCWD</w>, "f", O_RDONLY <unfinished ...>')).toBeNull();
  });
});

describe('syscall effects', () => {
  it('takes the path the kernel returned for an open, and its op from the flags', () => {
    const [e] = syscallEffects(line('openat(AT_FDCWD</w>, "s", O_RDONLY) = 3</out/secret>'), '/ignored');
    expect(e).toMatchObject({ op: 'read', named: '/w/s', real: '/out/secret' });
    const [w] = syscallEffects(
      line('openat(AT_FDCWD</w>, "n", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3</w/n>'),
      '/',
    );
    expect(w?.op).toBe('write');
  });

  it('does nothing for failed calls and descriptor-only stats', () => {
    expect(
      syscallEffects(line('openat(AT_FDCWD</w>, "f", O_RDONLY) = -1 ENOENT (No such file)'), '/w'),
    ).toEqual([]);
    expect(
      syscallEffects(line('newfstatat(3</w/f>, "", {st_mode=S_IFREG}, AT_EMPTY_PATH) = 0'), '/w'),
    ).toEqual([]);
  });

  it('names both sides of a rename, relative to the cwd, without following links', () => {
    const effects = syscallEffects(line('rename("d/t", "d/f") = 0'), '/w');
    expect(effects.map((e) => [e.op, e.named, e.follow])).toEqual([
      ['write', '/w/d/t', false],
      ['write', '/w/d/f', false],
    ]);
  });

  it('treats a directory open as a check and getdents as the listing', () => {
    const [open] = syscallEffects(line('openat(AT_FDCWD</w>, ".", O_RDONLY|O_DIRECTORY) = 3</w>'), '/w');
    expect(open?.op).toBe('stat');
    expect(listedDirectory(line('getdents64(3</w/src>, 0x1 /* 4 entries */, 32768) = 112'))).toBe('/w/src');
    expect(listedDirectory(line('getdents64(3</w/src>, 0x1 /* 0 entries */, 32768) = 0'))).toBeNull();
  });
});

describe('kernel path resolution', () => {
  it('follows a link before a later .. (physical, as the kernel)', () => {
    expect(resolveKernelPath(`${root}/ws/link/../secret`, true)).toBe(join(root, 'out/secret'));
  });

  it('follows the final link only when the syscall does', () => {
    expect(resolveKernelPath(join(root, 'ws/s'), true)).toBe(join(root, 'out/secret'));
    expect(resolveKernelPath(join(root, 'ws/s'), false)).toBe(join(root, 'ws/s'));
  });

  it('applies a .. inside a link target after the links before it', () => {
    symlinkSync('link/../secret', join(root, 'ws/via'));
    expect(resolveKernelPath(join(root, 'ws/via'), true)).toBe(join(root, 'out/secret'));
  });

  it('appends a missing tail as named', () => {
    expect(resolveKernelPath(`${root}/ws/link/new/../y`, true)).toBe(join(root, 'out/dir/y'));
  });
});

describe('coverage', () => {
  const access = (a: Partial<Access>): Access => ({
    op: 'read',
    scope: 'path',
    raw: '',
    path: a.realPath ?? '',
    realPath: null,
    origin: 'test',
    certain: true,
    ...a,
  });
  const k = (op: KernelAccess['op'], path: string, named = path): KernelAccess => ({
    op,
    path,
    named,
    syscall: 't',
  });

  it('needs a write for a write; a read or write for a read; anything for a list', () => {
    const claims = claimsOf([access({ op: 'read', realPath: join(root, 'ws/f') })]);
    expect(isCovered(k('read', join(root, 'ws/f')), claims)).toBe(true);
    expect(isCovered(k('write', join(root, 'ws/f')), claims)).toBe(false);
    expect(isCovered(k('list', join(root, 'ws/f')), claims)).toBe(true);
  });

  it('covers beneath a subtree by path component only', () => {
    const claims = claimsOf([access({ scope: 'subtree', realPath: join(root, 'ws') })]);
    expect(isCovered(k('read', join(root, 'ws/sub/x')), claims)).toBe(true);
    expect(isCovered(k('read', join(root, 'ws-evil/x')), claims)).toBe(false);
  });

  it('reaches through links beneath a subtree only when the program follows them', () => {
    const target = join(root, 'out/dir/x');
    const named = join(root, 'ws/link/x');
    const plain = claimsOf([access({ scope: 'subtree', realPath: join(root, 'ws') })]);
    const following = claimsOf([access({ scope: 'subtree', realPath: join(root, 'ws'), followLinks: true })]);
    expect(isCovered(k('read', target, named), plain)).toBe(false);
    expect(isCovered(k('read', target, named), following)).toBe(true);
  });

  it('does not cover what the subtree filter skips', () => {
    const filter = { name: 'skip sub', skips: (rel: string) => rel.startsWith('sub') };
    const claims = claimsOf([access({ scope: 'subtree', realPath: join(root, 'ws'), filter })]);
    expect(isCovered(k('read', join(root, 'ws/sub/x')), claims)).toBe(false);
    expect(isCovered(k('read', join(root, 'ws/other')), claims)).toBe(true);
  });

  it('ignores uncertain accesses as claims', () => {
    expect(claimsOf([access({ certain: false, realPath: join(root, 'ws') })])).toEqual([]);
  });
});
