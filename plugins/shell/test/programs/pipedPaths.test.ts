import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { extractAccesses } from '../../src/index.js';
import { context, touchesEnv } from './envJudge.js';

// `find … | xargs CMD`: CMD's operands are the paths find prints, a known set (find's start points and tests),
// exactly with -print0 | xargs -0, and one a line only while no name holds a blank or quote: xargs would
// split `src/x .env` into `src/x` and `.env`, a path beside the cwd that find never printed.
function tree(withEnv: boolean, splitName: boolean): string {
  const ws = mkdtempSync(join(tmpdir(), 'tg-piped-'));
  for (const d of ['src/lib', 'docs', 'outside']) mkdirSync(join(ws, d), { recursive: true });
  for (const f of ['src/a.ts', 'src/lib/b.ts', 'docs/readme.md', 'outside/key'])
    writeFileSync(join(ws, f), 'x');
  if (withEnv) writeFileSync(join(ws, '.env'), 'KEY=1');
  if (splitName) writeFileSync(join(ws, 'src', 'x .env'), 'x');
  // A link among the files: the program opens its target.
  symlinkSync(join(ws, 'outside', 'key'), join(ws, 'docs', 'notes.md'));
  return ws;
}
const clean = tree(false, false);
const withEnv = tree(true, false);
const split = tree(true, true);
afterAll(() => {
  for (const d of [clean, withEnv, split]) rmSync(d, { recursive: true, force: true });
});

const run = (ws: string, cmd: string) => extractAccesses(cmd, context(ws));
const verdict = (ws: string, cmd: string) => touchesEnv(run(ws, cmd).accesses) ?? 'clean';

describe('find | xargs: the operands are the paths find prints', () => {
  it.each([
    "find src -name '*.ts' | xargs wc -l",
    "find . -name '*.ts' | xargs grep -l TODO",
    "find . -name '*.ts' 2>/dev/null | xargs -r wc -l",
    "find . -type f -name '*.ts' -print0 | xargs -0 wc -l",
    'find src -type f | xargs -n 1 head -1',
    "find . -name '*.md' -print | xargs -I{} cp {} /tmp/out/",
    "find . -name '*.ts' | grep -v lib | xargs wc -l",
    "find . -name '*.ts' | sort | uniq | head -n 20 | xargs wc -l",
    "find . -name '*.ts' | grep -E -e 'a|b' | tail -5 | xargs cat",
    'grep -rl TODO src | xargs wc -l',
    'grep -rlZ --include=*.ts x . | xargs -0 wc -l',
  ])('%s is certain and does not reach .env (twin of a false deny)', (cmd) => {
    expect(run(withEnv, cmd).uncertain).toBe(false);
    expect(verdict(withEnv, cmd)).toBe('clean');
  });

  it.each([
    'find . -type f | xargs wc -l',
    'find . -print0 | xargs -0 cat',
    "find . -name '.e*' | xargs cat",
    'grep -rl KEY . | xargs cat',
  ])('%s reaches .env when it exists, and not in a tree without one', (cmd) => {
    expect(verdict(withEnv, cmd)).not.toBe('clean');
    expect(verdict(clean, cmd)).toBe('clean');
  });

  it('a link find prints is judged where it leads (cat opens it)', () => {
    const reads = run(clean, "find docs -name '*.md' | xargs cat").accesses.filter((a) => a.op === 'read');
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.every((a) => a.scope === 'subtree' && a.followLinks === true)).toBe(true);
  });
});

describe('find | xargs: whatever is not exactly the paths find prints stays uncertain (attacks)', () => {
  it.each([
    // A name with a blank splits into a path beside the cwd.
    [split, "find src -name '*.ts' -o -name '*.env' | xargs cat"],
    [split, 'find src | xargs cat'],
    [split, 'find src -type f | xargs -I{} cat {}'],
    // The same line creates such a name first, or while find walks.
    [clean, "touch 'src/y .env'; find src | xargs cat"],
    [clean, "find src | xargs cat & touch 'src/y .env'"],
    [clean, 'tar xf /tmp/a.tar -C src && find src | xargs cat'],
    // stderr joins the pipe: find's messages are not paths.
    [clean, 'find src |& xargs cat'],
    [clean, 'find src 2>&1 | xargs cat'],
    // NULs read as lines and lines as NUL-terminated, or a delimiter of xargs's own.
    [clean, 'find src -print0 | xargs cat'],
    [clean, 'find src | xargs -0 cat'],
    [clean, "find src | xargs -d '\\n' cat"],
    // find prints more than paths, or something else prints.
    [clean, "find src -printf '%p\\n' | xargs cat"],
    [clean, 'find src -ls | xargs cat'],
    [clean, 'find src -exec echo {} \\; | xargs cat'],
    [clean, 'echo .env $(find src) | xargs cat'],
    [clean, 'find -L src | xargs cat'],
    // xargs's stdin is not the pipe.
    [clean, 'find src | xargs cat < list.txt'],
    // grep prints more than names, or names NUL-terminated to a line reader.
    [clean, 'grep -rc x src | xargs cat'],
    [clean, 'grep -rlZ x src | xargs cat'],
    [clean, 'grep -l x src/a.ts | xargs cat'],
    [clean, 'grep -rl x src 2>&1 | xargs cat'],
    // Between them, a program that changes the lines.
    [clean, 'find src | grep -o a | xargs cat'],
    [clean, 'find src | grep -n a | xargs cat'],
    [clean, 'find src | grep -C1 a | xargs cat'],
    [clean, 'find src | grep a list.txt | xargs cat'],
    [clean, 'find src | head -c 5 | xargs cat'],
    [clean, 'find src | sed s/a/b/ | xargs cat'],
    [clean, 'find src | sort -o x | xargs cat'],
    [clean, 'find src -print0 | sort -z | xargs -0 cat'],
  ])('%#: %s is uncertain', (ws, cmd) => {
    expect(run(ws, cmd).uncertain).toBe(true);
  });

  it('the reason names the file whose name splits', () => {
    const r = run(split, 'find src | xargs cat');
    expect(r.accesses.find((a) => !a.certain)?.reason).toMatch(/src\/x \.env.*blank or quote/);
  });
});

describe('git ls-files | xargs, git diff --name-only | xargs: the index names the paths', () => {
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', args, {
      cwd,
      stdio: 'ignore',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, GIT_CONFIG_NOSYSTEM: '1' },
    });
  function repo(trackEnv: boolean, spaced: boolean): string {
    const ws = mkdtempSync(join(tmpdir(), 'tg-piped-git-'));
    mkdirSync(join(ws, 'src'));
    writeFileSync(join(ws, 'src', 'a.ts'), 'a');
    writeFileSync(join(ws, 'README.md'), 'r');
    writeFileSync(join(ws, '.gitignore'), '.env\n');
    if (spaced) writeFileSync(join(ws, 'src', 'my .env'), 'x');
    git(ws, 'init', '-q');
    git(ws, 'add', '-A');
    if (trackEnv) {
      writeFileSync(join(ws, '.env'), 'K=1');
      git(ws, 'add', '-f', '.env');
    }
    git(ws, '-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '-qm', 'init');
    writeFileSync(join(ws, '.env'), 'K=1');
    writeFileSync(join(ws, 'src', 'a.ts'), 'changed');
    return ws;
  }
  const plain = repo(false, false);
  const tracked = repo(true, false);
  const spaced = repo(false, true);
  afterAll(() => {
    for (const d of [plain, tracked, spaced]) rmSync(d, { recursive: true, force: true });
  });

  it.each([
    "git ls-files '*.ts' | xargs wc -l",
    'git ls-files | xargs -r grep -l TODO',
    'git ls-files -z | xargs -0 wc -l',
    'git diff --name-only | xargs -r wc -l',
    'git ls-files -m | xargs cat',
  ])('%s: certain, and the untracked .env is not reached (twin of a false deny)', (cmd) => {
    expect(run(plain, cmd).uncertain).toBe(false);
    expect(verdict(plain, cmd)).toBe('clean');
  });

  it('git writing the worktree before git walks it does not make the walk unknown (git stash … pop)', () => {
    const cmd = 'git stash && git status --short; git stash pop';
    expect(run(plain, cmd).accesses.some((a) => a.unknownContents !== undefined)).toBe(false);
    expect(verdict(plain, cmd)).toBe('clean');
    expect(verdict(tracked, cmd)).not.toBe('clean');
    // Another program writing first still does.
    const cp = run(plain, 'cp -r src/. . && git stash pop').accesses;
    expect(cp.some((a) => a.unknownContents !== undefined)).toBe(true);
  });

  it('a tracked .env is reached (twin)', () => {
    expect(verdict(tracked, 'git ls-files | xargs cat')).not.toBe('clean');
    expect(verdict(tracked, 'wc -l $(git ls-files)')).not.toBe('clean');
    expect(verdict(tracked, 'git ls-files | while read -r f; do cat "$f"; done')).not.toBe('clean');
    expect(verdict(tracked, 'for f in $(git ls-files); do cat "$f"; done')).not.toBe('clean');
  });

  it.each([
    "wc -l $(git ls-files '*.ts')",
    'grep -n TODO `git ls-files`',
    'npx prettier --check $(git diff --name-only)',
    "cat $(find src -name '*.ts')",
    "wc -l $(find . -name '*.ts' | sort)",
    'for f in $(git ls-files \'*.ts\'); do echo "== $f"; head -5 "$f"; done',
    'git ls-files \'*.ts\' | while read -r f; do wc -l "$f"; done',
    'find src -name "*.ts" | while IFS= read -r file; do grep -c x "${file}"; done',
  ])('%s: a whole-word substitution (or a loop over it) of known paths is those paths', (cmd) => {
    const r = run(plain, cmd);
    expect(r.accesses.filter((a) => !a.certain && !/npx|prettier|download/.test(a.reason ?? ''))).toEqual([]);
    expect(verdict(plain, cmd.replace('npx prettier --check', 'cat'))).toBe('clean');
  });

  it.each([
    [plain, 'git diff --name-only HEAD~1 | xargs cat'], // a commit may name a file the index no longer has
    [plain, 'git diff --cached --name-only | xargs cat'],
    [plain, 'git ls-files -s | xargs cat'], // mode, hash and stage before the path
    [plain, 'git ls-files -o | xargs cat'], // untracked files
    [plain, 'git ls-files --full-name | xargs cat'],
    [plain, 'cd src && git diff --name-only | xargs cat'], // root-relative names read from a subdirectory
    [plain, 'git add .env -f; git ls-files | xargs cat'],
    [spaced, 'git ls-files | xargs cat'], // "src/my .env" would split into src/my and .env
    [plain, 'git ls-files -z | xargs cat'],
    // A substitution the shell splits: quoted (one field of many lines), another IFS, a name that splits.
    [plain, 'cat "$(git ls-files)"'],
    [plain, 'IFS=.; cat $(git ls-files)'],
    [spaced, 'cat $(git ls-files)'],
    [plain, 'cat $(git ls-files -s)'],
    [plain, 'cat x$(git ls-files)'],
    [plain, '$(git ls-files | head -1)'],
    // A loop variable that is not (or no longer) one of the paths.
    [plain, 'git ls-files | while read f; do cat "$f"; done'], // without -r, backslashes are read as escapes
    [plain, 'git ls-files | while read -r f g; do cat "$g"; done'],
    [plain, 'git ls-files | while read -r f; do f=$(cat list); cat "$f"; done'],
    [plain, 'git ls-files | while read -r f; do cat "$f.bak"; done'],
    [plain, 'read() { cat "$1"; }; git ls-files | while read -r f; do cat "$f"; done'],
    [plain, 'git ls-files | while read -r f; do cat "$f"; done < list.txt'],
    [spaced, 'for f in $(git ls-files); do cat "$f"; done'],
    [spaced, 'git ls-files | while read -r f; do cat "$f"; done'],
  ])('%#: %s is uncertain (attack)', (ws, cmd) => {
    expect(run(ws, cmd).uncertain).toBe(true);
  });
});
