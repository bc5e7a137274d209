import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { on, type ScratchTree, scratchTree } from './scratchTree.js';

let t: ScratchTree;
const w = (rel: string, text: string) => writeFileSync(join(t.ws, rel), text);
beforeAll(() => {
  t = scratchTree();
  const h = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
  w('SUMS', `${h}  src/a.txt\n${h} *src/sub/b.txt\nSHA256 (src/flink) = ${h}\n`);
  w('EVIL.SUMS', `${h}  /etc/shadow\n`);
  w('BAD.SUMS', `${h}  src/a.txt\nthis is not a checksum line\n`);
  w('list.txt', 'src/a.txt "src/sub/b.txt"\nsrc/with\\ space\n');
  w('nul.txt', 'src/a.txt\0/etc/shadow\0');
  w('quote.txt', '"unterminated\n');
  mkdirSync(join(t.ws, 'pkg', 'lib'), { recursive: true });
  w('fix.diff', '--- a/pkg/lib/x.ts\t2024-01-01\n+++ b/pkg/lib/x.ts\t2024-01-01\n@@ -1 +1 @@\n-a\n+b\n');
  w('git.diff', 'diff --git a/pkg/old.ts b/pkg/new.ts\nrename from pkg/old.ts\nrename to pkg/new.ts\n');
  w('escape.diff', '--- a/../outside/canary\n+++ b/../outside/canary\n@@ -1 +1 @@\n-a\n+b\n');
  w('ed.diff', '1c\nhello\n.\nw\n');
  w('link.diff', 'diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+/etc\n');
  w('members.txt', 'src/a.txt\nsrc/sub\n');
  w('opts.txt', 'src/a.txt\n-C\n/etc\nshadow\n');
});

describe('sha256sum -c judges the files its list names', () => {
  it('reads every listed file, relative to the cwd, as the program does', () => {
    const r = t.run('sha256sum -c SUMS');
    expect(r.uncertain).toBe(false);
    for (const f of ['SUMS', 'src/a.txt', 'src/sub/b.txt'])
      expect(on(r.accesses, 'read', join(t.ws, f))).toHaveLength(1);
    // `--tag` lines name a link: reading it reads the canary it points to.
    expect(on(r.accesses, 'read', join(t.outside, 'canary'))).toHaveLength(1);
  });

  it('a list naming a denied file makes that file a read', () => {
    expect(on(t.run('md5sum --check EVIL.SUMS').accesses, 'read', '/etc/shadow')).toHaveLength(1);
  });

  it('a line it cannot read, stdin, or a list the line writes first is uncertain', () => {
    expect(t.run('sha256sum -c BAD.SUMS').uncertain).toBe(true);
    expect(t.run('sha256sum -c').uncertain).toBe(true);
    expect(t.run('sha256sum -c -').uncertain).toBe(true);
    expect(t.run('echo x > SUMS2; sha256sum -c SUMS2').uncertain).toBe(true);
    expect(t.run('sha256sum -c missing.sums').uncertain).toBe(true);
  });
});

describe('xargs -a FILE gives CMD the file’s items, split as xargs splits them', () => {
  it('blanks separate, quotes and backslashes group', () => {
    const r = t.run('xargs -a list.txt rm');
    expect(r.uncertain).toBe(false);
    for (const f of ['src/a.txt', 'src/sub/b.txt', 'src/with space'])
      expect(on(r.accesses, 'write', join(t.ws, f))).toHaveLength(1);
  });

  it('-0 splits on NUL: a denied name is judged', () => {
    const r = t.run('xargs -0 -a nul.txt cat');
    expect(on(r.accesses, 'read', '/etc/shadow')).toHaveLength(1);
  });

  it('-I puts each line where the replacement string is', () => {
    const r = t.run('xargs -a list.txt -I{} cp {} /tmp/tg-none-dst/{}.bak');
    expect(r.uncertain).toBe(false);
    expect(on(r.accesses, 'read', join(t.ws, 'src/with space'))).toHaveLength(1);
  });

  it('-n splits the items into several command lines (cp sees two operands each time)', () => {
    const r = t.run('xargs -a members.txt -n 2 cp');
    expect(on(r.accesses, 'read', join(t.ws, 'src/a.txt'))).toHaveLength(1);
    // `cp src/a.txt src/sub`: src/sub is a directory, so the copy lands in it.
    expect(on(r.accesses, 'write', join(t.ws, 'src/sub/a.txt'))).toHaveLength(1);
  });

  it('an unmatched quote, a missing file or stdin is uncertain', () => {
    expect(t.run('xargs -a quote.txt rm').uncertain).toBe(true);
    expect(t.run('xargs -a nothing.txt rm').uncertain).toBe(true);
    expect(t.run('xargs rm < list.txt').uncertain).toBe(true);
  });
});

describe('patch writes the files the diff names', () => {
  it('-p1 -i strips one component; the backup and reject files are written beside', () => {
    const r = t.run('patch -p1 -i fix.diff');
    expect(r.uncertain).toBe(false);
    expect(on(r.accesses, 'read', join(t.ws, 'fix.diff'))).toHaveLength(1);
    for (const f of ['pkg/lib/x.ts', 'pkg/lib/x.ts.orig', 'pkg/lib/x.ts.rej'])
      expect(on(r.accesses, 'write', join(t.ws, f))).toHaveLength(1);
  });

  it('without -p GNU patch uses the base name; -d DIR is where names are resolved', () => {
    expect(on(t.run('patch -i fix.diff').accesses, 'write', join(t.ws, 'x.ts'))).toHaveLength(1);
    expect(on(t.run('patch -d pkg -p3 -i fix.diff').accesses, 'write', join(t.ws, 'pkg/x.ts'))).toHaveLength(
      1,
    );
  });

  it('git renames write both names', () => {
    const r = t.run('patch -p1 -i git.diff');
    expect(on(r.accesses, 'write', join(t.ws, 'pkg/old.ts'))).toHaveLength(1);
    expect(on(r.accesses, 'write', join(t.ws, 'pkg/new.ts'))).toHaveLength(1);
  });

  it('a diff whose names climb out of the workspace is judged there', () => {
    expect(on(t.run('patch -p1 -i escape.diff').accesses, 'write', join(t.outside, 'canary'))).toHaveLength(
      1,
    );
  });

  it('--dry-run only reads; -o writes the output instead', () => {
    const dry = t.run('patch --dry-run -p1 -i fix.diff').accesses;
    expect(dry.filter((a) => a.op === 'write')).toEqual([]);
    const out = t.run('patch -p1 -o /tmp/tg-none-out -i fix.diff').accesses;
    expect(out.filter((a) => a.op === 'write').map((a) => a.path)).toEqual(['/tmp/tg-none-out']);
  });

  it('`patch < FILE` reads FILE as the patch, as -i does', () => {
    const writes = (cmd: string) =>
      t
        .run(cmd)
        .accesses.filter((a) => a.op === 'write')
        .map((a) => a.realPath)
        .sort();
    expect(t.run('patch -p1 < fix.diff').uncertain).toBe(false);
    expect(writes('patch -p1 < fix.diff')).toEqual(writes('patch -p1 -i fix.diff'));
  });

  it('a patch that does not exist changes nothing; one made before the run stays beneath the directory', () => {
    const r = t.run('patch -p1 < no-such.diff');
    expect(r.uncertain).toBe(false);
    expect(r.accesses.filter((a) => a.op === 'write').map((a) => `${a.scope} ${a.realPath}`)).toEqual([
      `subtree ${t.ws}`,
    ]);
    expect(t.run('git apply no-such.diff').uncertain).toBe(false);
  });

  it('stdin, an ed script, a symlink the patch creates, or a diff written first are uncertain', () => {
    expect(t.run('cat fix.diff | patch -p1').uncertain).toBe(true);
    expect(t.run('patch -p1 < $(echo fix.diff)').uncertain).toBe(true);
    expect(t.run('patch -i ed.diff').uncertain).toBe(true);
    expect(t.run('patch -p1 -i link.diff').uncertain).toBe(true);
    expect(t.run('cp escape.diff fix2.diff && patch -p1 -i fix2.diff').uncertain).toBe(true);
  });
});

describe('tar -T and find -files0-from read their lists at check time', () => {
  it('tar -c -T LIST reads the members it names', () => {
    const r = t.run('tar -cf /tmp/tg-none.tar -T members.txt');
    expect(r.uncertain).toBe(false);
    expect(on(r.accesses, 'read', join(t.ws, 'src/sub')).map((a) => a.scope)).toEqual(['subtree']);
    expect(t.run('tar -cf /tmp/tg-none.tar --files-from=members.txt').uncertain).toBe(false);
  });

  it('a list holding options (`-C /etc`) is uncertain unless --verbatim-files-from', () => {
    expect(t.run('tar -cf /tmp/tg-none.tar -T opts.txt').uncertain).toBe(true);
    expect(t.run('tar -cf /tmp/tg-none.tar --verbatim-files-from -T opts.txt').uncertain).toBe(false);
  });

  it('find -files0-from lists the start points the file names', () => {
    const r = t.run('find -files0-from nul.txt -name x');
    expect(on(r.accesses, 'list', '/etc/shadow')).toHaveLength(1);
  });
});
