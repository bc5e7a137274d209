import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { on, type ScratchTree, scratchTree } from './scratchTree.js';

// Each claim below was checked on this machine with `strace -f -e trace=openat,newfstatat,statx` in a tree
// like this one (a symlink beneath the root leading to a canary outside): the programs that follow a link
// open the canary's directory through it, the others never do.

let t: ScratchTree;
beforeAll(() => {
  t = scratchTree();
});

/** The single subtree access a command makes on `src` (through `srclink` where named so). */
function walk(cmd: string, op: string, root = 'src') {
  const r = t.run(cmd);
  expect(r.uncertain).toBe(false);
  const hits = on(r.accesses, op, join(t.ws, root)).filter((a) => a.scope === 'subtree');
  expect(hits).toHaveLength(1);
  return hits[0]!;
}

describe('subtree walks follow symlinks exactly where the program does', () => {
  it('grep -r does not follow links beneath, grep -R does', () => {
    expect(walk('grep -r canary src', 'read').followLinks).toBeUndefined();
    expect(walk('grep -R canary src', 'read').followLinks).toBe(true);
    expect(walk('grep --dereference-recursive canary src', 'read').followLinks).toBe(true);
  });

  it('cp -r copies links as links (also a linked operand), -L follows every one, -H the operands', () => {
    expect(walk('cp -r src out', 'read').followLinks).toBeUndefined();
    expect(walk('cp -rL src out', 'read').followLinks).toBe(true);
    // `cp -r srclink out` copies the link itself: judged on the link, not on src.
    const asLink = t.run('cp -r srclink out').accesses.find((a) => a.op === 'read')!;
    expect(asLink).toMatchObject({ realPath: join(t.ws, 'srclink'), onLink: true });
    expect(walk('cp -rH srclink out', 'read').followLinks).toBeUndefined();
    // Without -r the source is followed.
    expect(on(t.run('cp src/flink x').accesses, 'read', join(t.outside, 'canary'))).toHaveLength(1);
  });

  it('tar follows links only with -h/--dereference', () => {
    expect(walk('tar cf /tmp/tg-none.tar src', 'read').followLinks).toBeUndefined();
    expect(walk('tar chf /tmp/tg-none.tar src', 'read').followLinks).toBe(true);
    expect(walk('tar --dereference -cf /tmp/tg-none.tar src', 'read').followLinks).toBe(true);
  });

  it('find lists a linked start point itself (-P), follows it with -H, follows all with -L/-follow', () => {
    expect(walk('find src -name x', 'list').followLinks).toBeUndefined();
    expect(walk('find -L src -name x', 'list').followLinks).toBe(true);
    expect(walk('find src -follow -name x', 'list').followLinks).toBe(true);
    const p = t.run('find srclink -name x').accesses[0]!;
    expect(p).toMatchObject({ op: 'list', realPath: join(t.ws, 'srclink'), onLink: true });
    expect(walk('find -H srclink -name x', 'list').followLinks).toBeUndefined();
  });

  it('du and ls -R follow links beneath only with -L', () => {
    expect(walk('du -s src', 'list').followLinks).toBeUndefined();
    expect(walk('du -sL src', 'list').followLinks).toBe(true);
    expect(walk('ls -R src', 'list').followLinks).toBeUndefined();
    expect(walk('ls -RL src', 'list').followLinks).toBe(true);
    expect(walk('tree -l src', 'list').followLinks).toBe(true);
  });

  it('zip -r stores what links point to unless -y', () => {
    expect(walk('zip -qr /tmp/tg-none.zip src', 'read').followLinks).toBe(true);
    expect(walk('zip -qry /tmp/tg-none.zip src', 'read').followLinks).toBeUndefined();
  });

  it('chmod -R never follows; chown -R follows with -L, and changes a linked operand itself by default', () => {
    expect(walk('chmod -R u+w src', 'write').followLinks).toBeUndefined();
    expect(walk('chown -R -L 0 src', 'write').followLinks).toBe(true);
    const own = t.run('chown -R 0 srclink').accesses[0]!;
    expect(own).toMatchObject({ realPath: join(t.ws, 'srclink'), onLink: true });
  });

  it('rm -r never follows, not even a linked operand', () => {
    const a = t.run('rm -rf srclink').accesses[0]!;
    expect(a).toMatchObject({ op: 'write', scope: 'subtree', realPath: join(t.ws, 'srclink'), onLink: true });
    expect(a.followLinks).toBeUndefined();
  });

  it('stat, readlink and file act on a link itself unless told to follow it', () => {
    const flink = join(t.ws, 'src', 'flink');
    const canary = join(t.outside, 'canary');
    expect(on(t.run('stat src/flink').accesses, 'list', flink)).toHaveLength(1);
    expect(on(t.run('stat -L src/flink').accesses, 'list', canary)).toHaveLength(1);
    expect(on(t.run('readlink src/flink').accesses, 'list', flink)).toHaveLength(1);
    expect(on(t.run('readlink -f src/flink').accesses, 'list', canary)).toHaveLength(1);
    expect(on(t.run('file src/flink').accesses, 'read', flink)).toHaveLength(1);
    expect(on(t.run('file -L src/flink').accesses, 'read', canary)).toHaveLength(1);
  });
});

describe('grep -r --include/--exclude/--exclude-dir: the walk skips what grep skips', () => {
  // Checked against grep 3.8 in a tree with .env, src/a.py, src/b.js and node_modules/x/c.py.
  it('a filter that matches what grep reads, by base name', () => {
    const filter = walk("grep -r --include='*.py' --exclude-dir=node_modules --exclude='.e*' KEY src", 'read')
      .filter!;
    expect(filter.skips('a.py', false)).toBe(false);
    expect(filter.skips('sub/deep/c.py', false)).toBe(false);
    expect(filter.skips('b.js', false)).toBe(true);
    expect(filter.skips('.env.py', false)).toBe(true);
    expect(filter.skips('node_modules', true)).toBe(true);
    expect(filter.skips('lib/node_modules', true)).toBe(true);
    expect(filter.skips('lib', true)).toBe(false);
  });

  it('no filter without those options, and none on a plain read', () => {
    expect(walk('grep -r KEY src', 'read').filter).toBeUndefined();
    expect(t.run('grep --include=*.py KEY src/a.txt').accesses[0]!.filter).toBeUndefined();
  });
});
