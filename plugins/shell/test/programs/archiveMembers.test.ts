import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { extractAccesses } from '../../src/index.js';
import { memberPath, tarMembers, zipMembers } from '../../src/programs/archives/archiveMembers.js';
import { context, touchesEnv } from './envJudge.js';

// Extraction is judged by the names the archive holds, read at check time (archives made by the real tar and
// zip): extracting sources into /tmp beside a `**/.env` rule is allowed, an archive with a `.env` is not.
const ws = mkdtempSync(join(tmpdir(), 'tg-archives-'));
afterAll(() => rmSync(ws, { recursive: true, force: true }));
const sh = (cmd: string, ...args: string[]) => execFileSync(cmd, args, { cwd: ws, stdio: 'ignore' });
mkdirSync(join(ws, 'src', 'sub'), { recursive: true });
mkdirSync(join(ws, 'out'));
writeFileSync(join(ws, 'src', 'a.ts'), 'a');
writeFileSync(join(ws, 'src', 'sub', 'b.ts'), 'b');
sh('tar', 'czf', 'clean.tgz', 'src');
sh('tar', 'cf', 'clean.tar', 'src');
sh('zip', '-qr', 'clean.zip', 'src');
writeFileSync(join(ws, 'src', '.env'), 'K=1');
sh('tar', 'czf', 'env.tgz', 'src');
sh('zip', '-qr', 'env.zip', 'src');
rmSync(join(ws, 'src', '.env'));
symlinkSync('/etc/passwd', join(ws, 'src', 'link'));
sh('tar', 'czf', 'link.tgz', 'src');
sh('zip', '-qry', 'link.zip', 'src');
rmSync(join(ws, 'src', 'link'));
// A member named through `..`: GNU tar refuses it, other tools may not; judged as the worst case here.
sh('tar', 'cf', 'dotdot.tar', '-P', '--transform=s,^src,../escape,', 'src');

const run = (cmd: string) => extractAccesses(cmd, context(ws));
const verdict = (cmd: string) => touchesEnv(run(cmd).accesses) ?? 'clean';
const writes = (cmd: string) =>
  run(cmd)
    .accesses.filter((a) => a.op === 'write')
    .map((a) => `${a.scope === 'subtree' ? '*' : ''}${a.realPath?.slice(ws.length)}`)
    .sort();

describe('archive member lists (tar, tar.gz, zip)', () => {
  it('reads the names as tar and zip wrote them', () => {
    const t = tarMembers(readFileSync(join(ws, 'clean.tgz')));
    const z = zipMembers(readFileSync(join(ws, 'clean.zip')));
    expect('names' in t && [...t.names].sort()).toEqual(['src/', 'src/a.ts', 'src/sub/', 'src/sub/b.ts']);
    expect('names' in z && [...z.names].sort()).toEqual(['src/', 'src/a.ts', 'src/sub/', 'src/sub/b.ts']);
    expect(tarMembers(readFileSync(join(ws, 'link.tgz')))).toMatchObject({ links: true });
    expect(zipMembers(readFileSync(join(ws, 'link.zip')))).toMatchObject({ links: true });
    expect(tarMembers(Buffer.from('not a tar archive'.padEnd(1024, 'x')))).toHaveProperty('unknown');
  });

  it('places members as tar does: ./ and / stripped, --strip-components, .. is not placed', () => {
    expect(memberPath('./src/a.ts')).toBe('src/a.ts');
    expect(memberPath('/etc/x')).toBe('etc/x');
    expect(memberPath('src/a.ts', 1)).toBe('a.ts');
    expect(memberPath('src/', 1)).toBeNull();
    expect(memberPath('../escape/a.ts')).toBeUndefined();
  });
});

describe('extraction writes the member paths (twins flip with a .env in the archive)', () => {
  it.each([
    'tar xzf clean.tgz -C out',
    'tar -xf clean.tar -C out',
    'tar xzf clean.tgz --strip-components=1 -C out',
    'unzip -o clean.zip -d out',
    'unzip -qj clean.zip -d out',
  ])('%s is certain and clean', (cmd) => {
    expect(run(cmd).uncertain).toBe(false);
    expect(verdict(cmd)).toBe('clean');
  });

  it('the writes are the members, beneath the target', () => {
    expect(writes('tar xzf clean.tgz -C out')).toEqual([
      '/out',
      '/out/src',
      '/out/src/a.ts',
      '/out/src/sub',
      '/out/src/sub/b.ts',
    ]);
    expect(writes('unzip -qj clean.zip -d out')).toEqual([
      '/out',
      '/out/a.ts',
      '/out/b.ts',
      '/out/src',
      '/out/sub',
    ]);
  });

  it.each(['tar xzf env.tgz -C out', 'unzip -o env.zip -d out'])('%s writes .env (twin, denied)', (cmd) => {
    expect(verdict(cmd)).toMatch(/\.env/);
  });

  it.each([
    ['a link among the members', 'tar xzf link.tgz -C out'],
    ['a link among the members', 'unzip link.zip -d out'],
    ['a .. member', 'tar xf dotdot.tar -C out'],
    ['stdin', 'cat clean.tgz | tar xz -C out'],
    ['written by the line first', 'cp env.tgz new.tgz && tar xzf new.tgz -C out'],
    ['renamed', "tar xzf clean.tgz --transform 's/a/.env/' -C out"],
  ])('%s: every name beneath the target (worst case)', (_why, cmd) => {
    const w = run(cmd).accesses.find((a) => a.op === 'write' && a.realPath === join(ws, 'out'));
    expect(w?.scope).toBe('subtree');
    expect(w?.unknownContents).toBeDefined();
  });

  it('what a worst-case extraction brings is not followed afterwards (a link among the members)', () => {
    expect(run('tar xzf link.tgz -C out && cat out/src/link').uncertain).toBe(true);
    expect(run('tar xzf clean.tgz -C out && cat out/src/a.ts').uncertain).toBe(false);
  });

  it('an archive that does not exist extracts nothing (the program fails first): judged by what exists', () => {
    expect(writes('tar xzf missing.tgz -C out')).toEqual(['*/out']);
    expect(writes('unzip missing.zip -d out')).toEqual(['*/out']);
    const w = run('tar xzf missing.tgz -C out').accesses.find((a) => a.op === 'write');
    expect(w?.unknownContents).toBeUndefined();
  });
});
