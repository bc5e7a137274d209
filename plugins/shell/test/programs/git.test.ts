import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { extractAccesses } from '../../src/index.js';
import { parseIndex } from '../../src/programs/vcs/git/gitIndex.js';
import { patchTargets } from '../../src/programs/vcs/git/patchTargets.js';
import { context, sh, touchesEnv, verdict } from './envJudge.js';

// Real repositories in temp dirs, judged under the issue's `**/.env` deny (see envJudge.ts).

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function repo(): string {
  const d = mkdtempSync(join(tmpdir(), 'tg-git-'));
  dirs.push(d);
  sh(d, 'git', 'init', '-q', '-b', 'main');
  sh(d, 'git', 'config', 'user.email', 'a@b.c');
  sh(d, 'git', 'config', 'user.name', 'a');
  mkdirSync(join(d, 'src'));
  writeFileSync(join(d, 'src/a.ts'), 'export const a = 1;\n');
  writeFileSync(join(d, 'README.md'), '# x\n');
  sh(d, 'git', 'add', '.');
  sh(d, 'git', 'commit', '-qm', 'init');
  return d;
}

function uncertain(cmd: string, cwd: string): boolean {
  return extractAccesses(cmd, context(cwd)).uncertain;
}

describe('git twins: .env present, untracked and not ignored', () => {
  it('status, log, diff and commit allow; add -A and add . deny', () => {
    const d = repo();
    writeFileSync(join(d, '.env'), 'KEY=secret\n');
    for (const c of [
      'git status',
      'git status -s',
      'git log',
      'git log -p',
      'git diff',
      'git commit -m x',
      'git show HEAD',
    ])
      expect(verdict(c, d), c).toBe('allow');
    for (const c of [
      'git add -A',
      'git add .',
      'git add --all',
      'git stash -u',
      'git clean -f',
      'git add -A && git commit -m x',
    ])
      expect(verdict(c, d), c).toMatch(/^deny .*\.env/);
  });

  it('with .env in .gitignore, add -A allows (and clean -fx, which removes ignored files, denies)', () => {
    const d = repo();
    writeFileSync(join(d, '.env'), 'KEY=secret\n');
    writeFileSync(join(d, '.gitignore'), '.env\n');
    for (const c of [
      'git add -A',
      'git add .',
      'git status',
      'git clean -fd',
      'git add -A && git commit -m x && git status',
    ])
      expect(verdict(c, d), c).toBe('allow');
    expect(verdict('git clean -fdx', d)).toMatch(/^deny/);
    expect(verdict('git add -f .env', d)).toMatch(/^deny/);
    expect(verdict('git add -A -f', d)).toMatch(/^deny/);
  });

  it('nested .gitignore files, negations and .git/info/exclude follow git precedence', () => {
    const d = repo();
    mkdirSync(join(d, 'app'));
    writeFileSync(join(d, 'app/.env'), 'K=1\n');
    writeFileSync(join(d, 'app/.gitignore'), '.env\n');
    expect(verdict('git add -A', d)).toBe('allow');
    // A deeper file re-includes what a shallower one ignores.
    writeFileSync(join(d, '.gitignore'), '.env\n');
    writeFileSync(join(d, 'app/.gitignore'), '!.env\n');
    expect(verdict('git add -A', d)).toMatch(/^deny .*app\/\.env/);
    writeFileSync(join(d, 'app/.gitignore'), '');
    rmSync(join(d, '.gitignore'));
    writeFileSync(join(d, '.git/info/exclude'), '**/.env\n');
    expect(verdict('git add -A', d)).toBe('allow');
    // Everything beneath an ignored directory is ignored.
    writeFileSync(join(d, '.git/info/exclude'), 'app/\n');
    expect(verdict('git add -A', d)).toBe('allow');
    expect(verdict('git add app', d)).toBe('allow');
  });

  it('a .gitignore that is a symlink is not honoured (git does not follow it)', () => {
    const d = repo();
    writeFileSync(join(d, '.env'), 'K=1\n');
    const elsewhere = mkdtempSync(join(tmpdir(), 'tg-ign-'));
    dirs.push(elsewhere);
    writeFileSync(join(elsewhere, 'ign'), '.env\n');
    symlinkSync(join(elsewhere, 'ign'), join(d, '.gitignore'));
    expect(verdict('git add -A', d)).toMatch(/^deny/);
  });

  it('a .gitignore written earlier on the same line is not trusted', () => {
    const d = repo();
    writeFileSync(join(d, '.env'), 'K=1\n');
    writeFileSync(join(d, '.gitignore'), '.env\n');
    expect(verdict("echo '!.env' >> .gitignore && git add -A", d)).toMatch(/^deny/);
    mkdirSync(join(d, 'sub'));
    writeFileSync(join(d, 'sub/.env'), 'K=1\n');
    writeFileSync(join(d, 'sub/.gitignore'), '.env\n');
    expect(verdict('git add -A', d)).toBe('allow');
    expect(verdict("echo '!.env' > sub/.gitignore; git add -A", d)).toMatch(/^deny/);
  });
});

describe('tracked files come from .git/index', () => {
  it('a committed .env is read by status, diff and commit; log still reads only .git', () => {
    const d = repo();
    writeFileSync(join(d, '.env'), 'K=1\n');
    sh(d, 'git', 'add', '-f', '.env');
    sh(d, 'git', 'commit', '-qm', 'oops');
    for (const c of ['git status', 'git diff', 'git commit -m y', 'git grep K', 'git add -u'])
      expect(verdict(c, d), c).toMatch(/^deny/);
    for (const c of ['git log', 'git log --stat', 'git rev-parse HEAD', 'git branch -a', 'git diff --cached'])
      expect(verdict(c, d), c).toBe('allow');
  });

  for (const version of ['2', '3', '4']) {
    it(`parses index version ${version} exactly as git ls-files lists it`, () => {
      const d = repo();
      mkdirSync(join(d, 'deep/er/still'), { recursive: true });
      for (const n of [
        'deep/x',
        'deep/er/y',
        'deep/er/still/zzzzzzzzzzzzzzzz',
        'deep/er/still/z2',
        'émoji ✓.txt',
      ])
        writeFileSync(join(d, n), n);
      sh(d, 'git', 'add', '.');
      // An intent-to-add entry carries extended flags, which needs version 3 or later.
      if (version !== '2') {
        writeFileSync(join(d, 'later.txt'), 'x');
        sh(d, 'git', 'add', '-N', 'later.txt');
      }
      sh(d, 'git', 'update-index', '--index-version', version);
      const buf = readFileSync(join(d, '.git/index'));
      expect(buf.readUInt32BE(4)).toBe(Number(version));
      const parsed = parseIndex(buf);
      const listed = sh(d, 'git', '-c', 'core.quotepath=off', 'ls-files').trim().split('\n');
      expect([...(parsed?.files ?? [])].sort()).toEqual(listed.sort());
      expect(parsed?.dirs.has('deep/er/still')).toBe(true);
    });
  }

  it('an unreadable or foreign index gives no filter: everything beneath is judged', () => {
    const d = repo();
    writeFileSync(join(d, '.env'), 'K=1\n');
    writeFileSync(join(d, '.git/index'), 'not an index');
    expect(verdict('git status', d)).toMatch(/^deny/);
    expect(parseIndex(Buffer.from('DIRC\0\0\0\x09\0\0\0\0'))).toBeNull();
  });
});

describe('after code nobody analysed on the same line', () => {
  // `npm test; git status` in a project with a gitignored .env: the tests could have run `git add -f .env`,
  // so which files are tracked is not known — an uncertain access (the sandbox confines it), never a certain
  // access of .env (a false deny of the everyday line).
  function withIgnoredEnv(): string {
    const d = repo();
    writeFileSync(join(d, '.gitignore'), '.env\n');
    writeFileSync(join(d, '.env'), 'KEY=secret\n');
    sh(d, 'git', 'add', '.gitignore');
    sh(d, 'git', 'commit', '-qm', 'ignore');
    return d;
  }

  it('git status, diff, add -A, stash and stash pop are uncertain, not a certain access of the ignored .env', () => {
    const d = withIgnoredEnv();
    for (const c of [
      'node t.js; git status',
      'node t.js && git diff',
      'node t.js; git add -A',
      'node t.js; git stash',
      'git stash && node t.js; git stash pop',
    ]) {
      const { accesses } = extractAccesses(c, context(d));
      expect(touchesEnv(accesses.filter((a) => a.certain && a.realPath !== null)), c).toBeNull();
      expect(
        accesses.some((a) => !a.certain && a.origin.startsWith('shell:git')),
        c,
      ).toBe(true);
    }
  });

  it('twins: alone they are certain and allowed; a line that tracks .env first is a certain deny', () => {
    const d = withIgnoredEnv();
    for (const c of ['git status', 'git diff', 'git add -A', 'git stash'])
      expect(verdict(c, d), c).toBe('allow');
    expect(verdict('git add -f .env && git status', d)).toMatch(/^deny .*\.env/);
  });
});

describe('git config reads', () => {
  // What each form reads of the user's and the system's config (judged paths), by git-config(1).
  const reads = (cmd: string, cwd: string) =>
    extractAccesses(cmd, context(cwd))
      .accesses.filter((a) => a.op === 'read' && /gitconfig$/.test(a.path))
      .map((a) => a.path.replace(/^.*\/(?=\.gitconfig$)/, '~/'));

  it('one named key is the program reading its own config, as git log does: no judged read', () => {
    const d = repo();
    for (const c of [
      'git config user.name',
      'git config --get user.email',
      'git config --get-all remote.origin.fetch',
      'git config core.autocrlf',
    ])
      expect(reads(c, d), c).toEqual([]);
  });

  it('twins: a listing, a pattern, a secret-looking key, an unknown key or an explicit scope read the files', () => {
    const d = repo();
    for (const c of [
      'git config --list',
      'git config -l',
      'git config --get-regexp .',
      'git config --show-origin user.name',
      'git config http.https://github.com/.extraheader',
      'git config credential.https://example.com.password',
      'git config "$KEY"',
    ])
      expect(reads(c, d), c).toEqual(['/etc/gitconfig', '~/.gitconfig']);
    expect(reads('git config --global user.name', d)).toEqual(['~/.gitconfig']);
    expect(reads('git config --system user.name', d)).toEqual(['/etc/gitconfig']);
  });
});

describe('hooks and the repository config run code', () => {
  it('an executable pre-commit hook makes commit uncertain; a .sample or non-executable one does not', () => {
    const d = repo();
    writeFileSync(join(d, '.git/hooks/pre-commit.sample'), '#!/bin/sh\n');
    chmodSync(join(d, '.git/hooks/pre-commit.sample'), 0o755);
    expect(uncertain('git commit -m x', d)).toBe(false);
    writeFileSync(join(d, '.git/hooks/pre-commit'), '#!/bin/sh\ncat ~/.ssh/id_rsa\n');
    chmodSync(join(d, '.git/hooks/pre-commit'), 0o644);
    expect(uncertain('git commit -m x', d)).toBe(false);
    chmodSync(join(d, '.git/hooks/pre-commit'), 0o755);
    expect(uncertain('git commit -m x', d)).toBe(true);
    expect(uncertain('git log', d)).toBe(false);
    expect(uncertain('git status', d)).toBe(false);
  });

  it('core.hooksPath (husky) points at the hooks that run', () => {
    const d = repo();
    mkdirSync(join(d, '.husky/_'), { recursive: true });
    sh(d, 'git', 'config', 'core.hooksPath', '.husky/_');
    expect(uncertain('git commit -m x', d)).toBe(false);
    writeFileSync(join(d, '.husky/_/pre-commit'), '#!/bin/sh\n');
    chmodSync(join(d, '.husky/_/pre-commit'), 0o755);
    expect(uncertain('git commit -m x', d)).toBe(true);
    expect(uncertain('git log --oneline', d)).toBe(false);
    expect(uncertain('git push', d)).toBe(false);
  });

  it('code-running keys in .git/config reach only the subcommands that run them', () => {
    const d = repo();
    sh(d, 'git', 'config', 'filter.x.clean', 'cat /etc/shadow');
    expect(uncertain('git add -A', d)).toBe(true);
    expect(uncertain('git status', d)).toBe(true);
    expect(uncertain('git log', d)).toBe(false);
    sh(d, 'git', 'config', '--unset', 'filter.x.clean');
    sh(d, 'git', 'config', 'core.pager', 'sh -c "cat /etc/shadow"');
    expect(uncertain('git log', d)).toBe(true);
    expect(uncertain('git add -A', d)).toBe(false);
    sh(d, 'git', 'config', '--unset', 'core.pager');
    sh(d, 'git', 'config', 'core.fsmonitor', 'true');
    expect(uncertain('git status', d)).toBe(false);
    sh(d, 'git', 'config', 'core.fsmonitor', './monitor.sh');
    expect(uncertain('git status', d)).toBe(true);
    sh(d, 'git', 'config', '--unset', 'core.fsmonitor');
    sh(d, 'git', 'config', 'pager.status', 'sh -c id');
    expect(uncertain('git status', d)).toBe(true);
    expect(uncertain('git diff', d)).toBe(false);
    sh(d, 'git', 'config', 'pager.status', 'false');
    expect(uncertain('git status', d)).toBe(false);
    sh(d, 'git', 'config', 'include.path', '/tmp/other');
    expect(uncertain('git log', d)).toBe(true);
  });

  it('a config written earlier on the same line is unknown', () => {
    const d = repo();
    expect(uncertain('git log', d)).toBe(false);
    expect(uncertain("printf '[core]\\n\\tpager = sh\\n' >> .git/config && git log", d)).toBe(true);
    // git's own writers leave the config alone: the chain stays certain.
    expect(uncertain('git add -A && git commit -m x && git log', d)).toBe(false);
  });
});

describe('settings agents pass to keep git quiet are harmless', () => {
  for (const cmd of [
    'git -c core.pager=cat log',
    "git -c core.pager='less -FRX' log",
    'git -c core.editor=true rebase --continue',
    'git -c sequence.editor=: rebase main',
    'git -c pager.log=false log',
    'git -c color.ui=always log',
  ]) {
    it(`certain: ${cmd}`, () => {
      expect(uncertain(cmd, repo())).toBe(false);
    });
  }
});

describe('repository discovery', () => {
  it('finds the repository from a subdirectory, with -C, and through a linked worktree', () => {
    const d = repo();
    const a = extractAccesses('git log', context(join(d, 'src'))).accesses;
    expect(a.map((x) => x.realPath)).toEqual([join(d, '.git')]);
    const b = extractAccesses(`git -C ${d} log`, context(tmpdir())).accesses;
    expect(b.map((x) => x.realPath)).toEqual([join(d, '.git')]);
    const wt = `${d}-wt`;
    dirs.push(wt);
    sh(d, 'git', 'worktree', 'add', '-q', wt);
    const c = extractAccesses('git log', context(wt)).accesses.map((x) => x.realPath);
    expect(c).toContain(join(d, '.git/worktrees', wt.split('/').pop()!));
    expect(c).toContain(join(d, '.git'));
    writeFileSync(join(wt, '.env'), 'K=1\n');
    expect(verdict('git status', wt)).toBe('allow');
    expect(verdict('git add -A', wt)).toMatch(/^deny/);
  });

  it('--git-dir and --work-tree name the repository', () => {
    const d = repo();
    const a = extractAccesses(`git --git-dir=${d}/.git --work-tree=${d} status`, context(tmpdir())).accesses;
    expect(a.map((x) => `${x.op} ${x.realPath}`).sort()).toEqual(
      // status refreshes the index (index.lock renamed over it): a write of the git dir.
      [`list ${d}`, `read ${d}`, `read ${d}/.git`, `write ${d}/.git`].sort(),
    );
  });
});

describe('checkout, clean, apply and format-patch write only what git writes', () => {
  it('checkout -b moves HEAD only; switching commits rewrites the tracked files, not untracked or ignored ones', () => {
    const d = repo();
    writeFileSync(join(d, '.env'), 'K=1\n');
    expect(verdict('git checkout -b feature', d)).toBe('allow');
    expect(verdict('git switch main', d)).toBe('allow'); // untracked, not ignored: git refuses to overwrite it
    writeFileSync(join(d, '.gitignore'), '.env\n');
    // An ignored file is overwritten only when the target commit tracks it, like any file a commit brings:
    // not read from git's objects (a documented limit; the OS sandbox covers it). A gitignored .env is the
    // everyday case, and denying every checkout, pull and reset beside one was a false deny.
    expect(verdict('git checkout main', d)).toBe('allow');
    expect(verdict('git reset --hard', d)).toBe('allow');
    expect(verdict('git checkout -f main', d)).toMatch(/^deny/);
    // A tracked .env is rewritten: denied.
    sh(d, 'git', 'add', '-f', '.env');
    expect(verdict('git checkout main', d)).toMatch(/^deny/);
    expect(verdict('git checkout -- .env', d)).toMatch(/^deny/);
    expect(verdict('git restore .env', d)).toMatch(/^deny/);
  });

  it('apply writes the files the patch names, relative to the worktree root', () => {
    const d = repo();
    writeFileSync(
      join(d, 'ok.diff'),
      'diff --git a/src/a.ts b/src/a.ts\n--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-x\n+y\n',
    );
    writeFileSync(join(d, 'bad.diff'), '--- a/.env\n+++ b/.env\n@@ -0,0 +1 @@\n+K=2\n');
    const ok = extractAccesses('git apply ../ok.diff', context(join(d, 'src'))).accesses;
    expect(ok.filter((a) => a.op === 'write').map((a) => a.realPath)).toEqual([join(d, 'src/a.ts')]);
    expect(verdict('git apply bad.diff', d)).toMatch(/^deny .*\.env/);
    expect(verdict('git apply --check bad.diff', d)).toBe('allow');
    expect(uncertain('git apply < bad.diff', d)).toBe(true);
    expect(uncertain('cat bad.diff | git apply', d)).toBe(true);
    expect(verdict('git apply -p0 bad.diff', d)).toMatch(/^deny .*a\/\.env/); // -p0 keeps the `a/`
  });

  it('format-patch writes numbered patch files only', () => {
    const d = repo();
    writeFileSync(join(d, '.env'), 'K=1\n');
    expect(verdict('git format-patch -1', d)).toBe('allow');
  });

  it('reads patch headers: renames, copies, /dev/null, -p', () => {
    expect(
      patchTargets('diff --git a/x b/y\nrename from x\nrename to y\n--- /dev/null\n+++ b/new\n'),
    ).toEqual(['x', 'y', 'new']);
    expect(patchTargets('--- old/a/b.c\n+++ new/a/b.c\n', 2)).toEqual(['b.c']);
    expect(patchTargets('--- "a/q\\tx"\n')).toBeNull();
  });
});

describe('options and subcommands that run code or name files (attacks)', () => {
  const d = () => repo();
  const attacks = [
    'git -c core.pager="cat /etc/shadow" log',
    'git -c core.sshCommand="sh -c id" fetch',
    'git -c diff.external=/tmp/x diff',
    'git -c filter.a.clean="cat ~/.ssh/id_rsa" add -A',
    'git -c alias.st="!cat /etc/shadow" st',
    'git -c include.path=/tmp/evil log',
    'git -c credential.helper="!sh -c id" push',
    'git -c core.fsmonitor=/tmp/x status',
    'git -c gpg.program=/tmp/x commit -S -m x',
    'git fetch --upload-pack="sh -c id" origin',
    'git push --receive-pack=/tmp/x origin',
    'git ls-remote --upload-pack=/tmp/x origin',
    'git clone -u "sh -c id" https://x y',
    'git clone --upload-pack=/tmp/x https://x y',
    'git clone ext::sh -c id y',
    'git rebase --exec "cat /etc/shadow" main',
    'git rebase -x id main',
    'git rebase -i HEAD~3',
    'git bisect run sh -c "cat /etc/shadow"',
    'git difftool -x "cat /etc/shadow"',
    'git submodule foreach "cat /etc/shadow"',
    'git filter-branch --tree-filter id HEAD',
    'git --exec-path=/tmp/x status',
    'git merge -s evil main',
    'git grep -O"cat /etc/shadow" foo',
    'git config core.pager "sh -c id"',
    "git config alias.x '!rm -rf /'",
    'git log --frobnicate',
    'git status --no-such-option',
    'git commit -m x --evil=/etc/shadow',
    'git frobnicate',
    'git $(echo log)',
    'git --config-env=core.pager=PAGER log',
  ];
  for (const cmd of attacks) {
    it(`uncertain: ${cmd}`, () => {
      expect(uncertain(cmd, d())).toBe(true);
    });
  }

  const paths: [string, string][] = [
    ['git log --output=/etc/cron.d/x', 'write /etc/cron.d/x'],
    ['git diff --output=/home/agent/.ssh/authorized_keys', 'write /home/agent/.ssh/authorized_keys'],
    ['git archive --output=/home/agent/.ssh/x HEAD', 'write /home/agent/.ssh/x'],
    ['git archive -o /etc/x.tar HEAD', 'write /etc/x.tar'],
    ['git format-patch -o /home/agent/.ssh HEAD~1', 'write /home/agent/.ssh'],
    ['git commit --template=/etc/shadow', 'read /etc/shadow'],
    ['git commit -F /etc/shadow', 'read /etc/shadow'],
    ['git tag -a v1 -F /etc/shadow', 'read /etc/shadow'],
    ['git blame --contents /home/agent/.ssh/id_rsa src/a.ts', 'read /home/agent/.ssh/id_rsa'],
    ['git diff --no-index /etc/shadow /dev/null', 'read /etc/shadow'],
    ['git diff -O/etc/shadow', 'read /etc/shadow'],
    ['git add --pathspec-from-file=/etc/shadow', 'read /etc/shadow'],
    ['git -C /etc log', 'read /etc/.git'],
    ['git --git-dir=/etc/x log', 'read /etc/x'],
  ];
  for (const [cmd, access] of paths) {
    it(`names a file: ${cmd}`, () => {
      const a = extractAccesses(cmd, context(d())).accesses;
      expect(a.map((x) => `${x.op} ${x.realPath}`)).toContain(access);
    });
  }
});
