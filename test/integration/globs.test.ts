import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallContext, createGuard } from '@toolgate/core';
import { folderRules } from '@toolgate/folder-rules';
import { shell } from '@toolgate/shell';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// A glob is judged by what it matches on disk, as bash expands it: `head *.md` never reads `.env`, `cat *`
// does not match dotfiles unless dotglob/GLOBIGNORE says so, and a matched symlink is followed by the
// program that opens it. Each false deny fixed here has a twin that must still deny.
let root: string;
let ws: string;
let home: string;
let ctx: CallContext;

const guard = () =>
  createGuard({
    plugins: [
      shell(),
      folderRules({
        rules: [
          { pattern: '<workspace>/**', access: 'write' },
          { pattern: '/tmp/**', access: 'write' },
          { pattern: '~/.ssh/**', access: 'deny' },
          { pattern: '**/.env', access: 'deny' },
        ],
      }),
    ],
  });
const run = async (command: string) => (await guard().check({ tool: 'Bash', args: { command } }, ctx)).action;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-int-glob-')));
  home = join(root, 'home');
  ws = join(home, 'ws');
  mkdirSync(join(ws, 'src'), { recursive: true });
  mkdirSync(join(ws, 'build'), { recursive: true });
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(ws, 'README.md'), '# r');
  writeFileSync(join(ws, 'NOTES.md'), '# n');
  writeFileSync(join(ws, '.env'), 'KEY=1');
  writeFileSync(join(ws, 'src', 'a.py'), 'x = 1');
  writeFileSync(join(ws, 'build', 'out.js'), '');
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'k');
  ctx = { sessionId: 's', agentId: 'a', cwd: ws, workspace: ws, home, env: { HOME: home } };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('globs are judged by their matches', () => {
  it('allows what the glob matches when a denied file lies beside it', async () => {
    expect(await run('head -n 5 *.md')).toBe('allow');
    expect(await run('wc -l src/*.py')).toBe('allow');
    expect(await run('cat *')).toBe('allow'); // bash: * does not match .env
    expect(await run('rm -r build*')).toBe('allow');
  });

  it('denies when the glob matches the denied file', async () => {
    expect(await run('cat .*')).toBe('deny');
    expect(await run('cat .e*')).toBe('deny');
    expect(await run('cat ?env')).toBe('allow'); // ? does not match a leading dot either
    expect(await run('grep KEY .[a-z]*')).toBe('deny');
  });

  it('denies inside a matched directory (a recursive program takes all of it)', async () => {
    writeFileSync(join(ws, 'build', '.env'), 'K=2');
    expect(await run('rm -r build*')).toBe('deny');
    expect(await run('head -n 5 *.md')).toBe('allow');
  });

  it('follows a matched symlink for programs that open it, not for rm', async () => {
    symlinkSync(join(home, '.ssh', 'id_rsa'), join(ws, 'key.md'));
    expect(await run('head -n 5 *.md')).toBe('deny');
    expect(await run('cat src/../*.md')).toBe('deny');
    expect(await run('rm *.md')).toBe('allow'); // removes the link, not the key
  });

  it('dotglob, nocaseglob and GLOBIGNORE widen what later globs match', async () => {
    expect(await run('shopt -s dotglob; cat *')).toBe('deny');
    expect(await run('GLOBIGNORE=x; cat *')).toBe('deny');
    expect(await run('shopt -s "$OPT"; cat *')).toBe('deny');
    writeFileSync(join(ws, 'Secret.ENV'), '');
    mkdirSync(join(ws, 'conf'));
    writeFileSync(join(ws, 'conf', '.env'), '');
    expect(await run('cat c*/*')).toBe('allow');
    expect(await run('shopt -s dotglob; cat c*/*')).toBe('deny');
    expect(await run('cat */.env')).toBe('deny');
  });

  it('a glob on a denied directory still denies, and /dev/null is no file', async () => {
    expect(await run('cat ~/.ssh/*')).toBe('deny');
    expect(await run('ls ~/.ssh/*.pub 2>/dev/null')).toBe('deny');
    expect(await run('cat README.md 2>/dev/null > /dev/null')).toBe('allow');
    expect(await run('echo x > /dev/sda')).toBe('deny');
  });
});

describe('links the same line creates inside a walk that follows links', () => {
  it('makes the walk unknown (worst case), and a walk that does not follow them is unaffected', async () => {
    mkdirSync(join(ws, 'other'));
    writeFileSync(join(ws, 'other', '.env'), 'K=3');
    // `ln -s` itself touches nothing of `other`; tar -h and grep -R then read other/.env through the link.
    expect(await run('ln -s ../other src/k && tar czhf /tmp/tg-a.tgz src')).toBe('deny');
    expect(await run('ln -s ../other src/k && grep -R key src')).toBe('deny');
    expect(await run('ln -s ../README.md src/k && grep -r key src')).toBe('allow');
    expect(await run('tar czhf /tmp/tg-a.tgz src')).toBe('allow');
  });
});
