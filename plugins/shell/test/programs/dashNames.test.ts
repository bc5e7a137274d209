import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractAccesses } from '../../src/index.js';
import { context, touchesEnv } from './envJudge.js';

// Names flowing from data into argv: `git ls-files` and `grep -rl PAT` (no path) print names without `./`,
// so a tracked file named `--files0-from=l` reaches `xargs wc` as an option and wc reads the files `l`
// lists (here `.env`). Each case runs for real first: the attack must make wc print `.env`'s name (it read
// it), the twin must not; then the guard's verdict under a `**\/.env` deny must match.

let ws: string;

beforeAll(() => {
  ws = realpathSync(mkdtempSync(join(tmpdir(), 'tg-dashnames-')));
  mkdirSync(join(ws, 'src'));
  writeFileSync(join(ws, 'src', 'a.ts'), 'x\n');
  writeFileSync(join(ws, '.env'), 'KEY=1\n');
  writeFileSync(join(ws, 'l'), '.env\0');
  writeFileSync(join(ws, '--files0-from=l'), 'x\n');
  const git = (...a: string[]) =>
    spawnSync('git', a, {
      cwd: ws,
      env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
    });
  git('init', '-q', '.');
  git('add', '--', 'src/a.ts', 'l', './--files0-from=l');
  git('-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '-qm', 'x');
});
afterAll(() => rmSync(ws, { recursive: true, force: true }));

/** Runs the command for real: did wc (or cat) open `.env`? */
function readsEnv(cmd: string): boolean {
  const r = spawnSync('bash', ['-c', cmd], { cwd: ws, encoding: 'utf8', input: '', timeout: 10000 });
  return /\.env|KEY=1/.test(r.stdout);
}

const verdict = (cmd: string) => touchesEnv(extractAccesses(cmd, context(ws)).accesses) ?? 'clean';

describe('a printed name starting with - is an option to the command taking it (attacks)', () => {
  it.each([
    // (wc refuses other operands beside --files0-from: one name a run.)
    'git ls-files | xargs -n1 wc',
    'git ls-files -z | xargs -0 -n1 wc',
    'git ls-files | xargs -I{} wc {}',
    // `l` and `.env` left out of grep's own search, so that wc gets the option alone.
    'grep -rl --exclude=l --exclude=.env --exclude-dir=src --exclude-dir=.git x | xargs wc',
    'grep -rlZ --exclude=l --exclude=.env --exclude-dir=src --exclude-dir=.git x | xargs -0 wc',
    'wc $(grep -rl --exclude=l --exclude=.env --exclude-dir=src --exclude-dir=.git x)',
    'for f in $(grep -rl --exclude=l --exclude=.env --exclude-dir=src --exclude-dir=.git x); do wc $f; done',
    'grep -rl --exclude=l --exclude=.env --exclude-dir=src --exclude-dir=.git x | while read -r f; do wc "$f"; done',
  ])('%s', (cmd) => {
    expect(readsEnv(cmd)).toBe(true);
    expect(verdict(cmd)).not.toBe('clean');
  });

  it('a -- that is $0 of sh -c ends no option list', () => {
    const cmd =
      'grep -rl --exclude=l --exclude=.env --exclude-dir=src --exclude-dir=.git x | xargs sh -c \'wc "$@"\' --';
    expect(readsEnv(cmd)).toBe(true);
    expect(verdict(cmd)).not.toBe('clean');
  });

  it.each(['git ls-files | xargs wc', 'git ls-files -z | xargs -0 wc', 'wc $(git ls-files)'])(
    '%s is uncertain (the index holds a name starting with -)',
    (cmd) => expect(verdict(cmd)).toMatch(/^uncertain/),
  );

  it('a name the same line creates is caught after the line', () => {
    const fresh = realpathSync(mkdtempSync(join(tmpdir(), 'tg-dashnames-fresh-')));
    try {
      mkdirSync(join(fresh, 'src'));
      writeFileSync(join(fresh, 'src', 'a.ts'), 'x\n');
      for (const cmd of [
        'touch ./--files0-from=l; grep -rl --exclude-dir=src x | xargs wc',
        'touch ./--files0-from=l; grep -rlZ --exclude-dir=src x | xargs -0 wc',
      ])
        expect(touchesEnv(extractAccesses(cmd, context(fresh)).accesses)).not.toBeNull();
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });
});

describe('the same pipes where no name can be an option (twins, allowed)', () => {
  it.each([
    // `--` ends the command's options before the names.
    'grep -rl --exclude=l --exclude=.env --exclude-dir=src --exclude-dir=.git x | xargs wc --',
    'grep -rlZ --exclude=l --exclude=.env --exclude-dir=src --exclude-dir=.git x | xargs -0 wc --',
    // find prints `./--files0-from=l`: an operand.
    "find . -name '--files0*' | xargs wc",
    "find . -name '--files0*' -print0 | xargs -0 wc",
    // Nothing printed starts with `-`.
    'grep -rl x src | xargs wc',
    'cd src && git ls-files | xargs wc',
  ])('%s', (cmd) => {
    expect(readsEnv(cmd)).toBe(false);
    expect(verdict(cmd)).toBe('clean');
  });
});
