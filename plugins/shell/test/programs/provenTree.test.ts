import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Access, type CallContext, isWithin } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractAccesses } from '../../src/index.js';
import { touchesEnv } from './envJudge.js';

// Where the tree helps, prove instead of refusing (issue 22's false denies), each twin beside an attack
// that stays denied. Every case runs for real in a fresh copy of the tree first: an attack must reach `.env`
// or the secret canary (cat prints it, or a file appears), a twin must not. strace of the runs:
// `find src -type f | xargs cat` opens src/a.ts only (never src/k.ts -> ../secret/key); rsync 3.2
// `--exclude-from=ex.txt` opens ex.txt and never .env; sed -i opens each tracked file, creates ./sedXXXXXX
// beside it (O_EXCL) and renames it over the file.

let root: string;
let template: string;
let secret: string;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-proven-')));
  template = join(root, 'template');
  secret = join(root, 'secret');
  mkdirSync(secret);
  writeFileSync(join(secret, 'key'), 'SECRET\n');
  mkdirSync(join(template, 'src', 'sub'), { recursive: true });
  mkdirSync(join(template, 'dst'));
  writeFileSync(join(template, 'src', 'a.ts'), 'a\n');
  writeFileSync(join(template, 'src', 'sub', '.env'), 'KEY=1\n');
  writeFileSync(join(template, 'ex.txt'), '# secrets\n.env\n\n');
  writeFileSync(join(template, 'inc.txt'), '+ .env\n- *.ts\n');
  writeFileSync(join(template, '.e'), 'a\n');
  const git = (...a: string[]) =>
    spawnSync('git', a, {
      cwd: template,
      env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
    });
  git('init', '-q', '.');
  git('add', 'src/a.ts', '.e');
  git('-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '-qm', 'x');
  // Links added after the commit: untracked, beneath src.
  symlinkSync(join(secret, 'key'), join(template, 'src', 'k.ts'));
  symlinkSync(secret, join(template, 'src', 'sec'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
function copy(): string {
  const ws = join(root, `ws${n++}`);
  cpSync(template, ws, { recursive: true, verbatimSymlinks: true });
  return ws;
}

/** Runs the command for real: did it print the secret or `.env`, or create a `.env` anywhere? */
function effect(cmd: string): boolean {
  const ws = copy();
  const r = spawnSync('bash', ['-c', cmd], { cwd: ws, encoding: 'utf8', input: '', timeout: 10000 });
  return (
    /SECRET|KEY=1/.test(r.stdout) ||
    existsSync(join(ws, 'dst', '.env')) ||
    existsSync(join(ws, 'dst', 'sub', '.env')) ||
    existsSync(join(ws, '.env')) ||
    readFileSync(join(secret, 'key'), 'utf8') !== 'SECRET\n'
  );
}

/** Denied under a `**\/.env` deny and a deny of the secret directory? */
function denied(cmd: string): boolean {
  const ws = copy();
  const ctx: CallContext = { sessionId: 's', agentId: 'a', cwd: ws, workspace: ws, home: root, env: {} };
  const { accesses } = extractAccesses(cmd, ctx);
  for (const a of accesses) {
    if (a.realPath !== null && isWithin(a.realPath, secret)) return true;
    // A walk that follows links (as the policy's does for followLinks) reaches the secret through one.
    if (a.scope === 'subtree' && a.followLinks && a.realPath !== null && linkToSecret(a.realPath, '', a))
      return true;
  }
  return touchesEnv(accesses) !== null;
}

function linkToSecret(dir: string, rel: string, a: Access): boolean {
  for (const d of readdirSync(join(dir, rel), { withFileTypes: true })) {
    const r = rel === '' ? d.name : `${rel}/${d.name}`;
    if (a.filter?.skips(r, d.isDirectory())) continue;
    if (d.isSymbolicLink() && isWithin(realpathSync(join(dir, r)), secret)) return true;
    if (d.isDirectory() && linkToSecret(dir, r, a)) return true;
  }
  return false;
}

describe('twins, now allowed: the program does not reach what the tree holds', () => {
  it.each([
    // find -type f prints no symlink (find -P: -type is the entry's own): cat opens none.
    "find src -type f -name '*.ts' | xargs cat",
    "find src -type f -name '*.ts' -print0 | xargs -0 cat",
    "find src -type f -name '*.ts' -exec cat {} +",
    // rsync reads the exclusion list and never opens .env.
    'rsync -a --exclude-from=ex.txt src/ dst/',
    'rsync -r --exclude-from ex.txt src dst/',
    // sed -i writes the tracked files and its temporaries beside them only.
    'git ls-files -z | xargs -0 sed -i s/a/b/',
    'git ls-files | xargs sed -i s/a/b/',
  ])('%s', (cmd) => {
    expect(effect(cmd)).toBe(false);
    expect(denied(cmd)).toBe(false);
  });
});

describe('attacks beside them stay denied', () => {
  it.each([
    // Without -type f the links are printed and followed.
    "find src -name '*.ts' | xargs cat",
    "find src -name '*.ts' -print0 | xargs -0 cat",
    // -xtype f and -type l print links; -L follows them.
    "find src -xtype f -name '*.ts' | xargs cat",
    "find src -type f,l -name '*.ts' | xargs cat",
    "find -L src -type f -name '*.ts' | xargs cat",
    // An exclusion list whose `+ ` rule brings .env back, or that the line rewrites first.
    'rsync -a --exclude-from=inc.txt src/ dst/',
    "printf 'x\\n' > ex.txt; rsync -a --exclude-from=ex.txt src/ dst/",
    // sed's backup of the tracked `.e` with suffix `nv` is `.env`: not a tracked name.
    "git ls-files -z | xargs -0 sed -i'nv' s/a/b/",
  ])('%s', (cmd) => {
    expect(effect(cmd)).toBe(true);
    expect(denied(cmd)).toBe(true);
  });
});
