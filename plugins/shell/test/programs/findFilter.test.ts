import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { extractAccesses } from '../../src/index.js';
import { context, touchesEnv } from './envJudge.js';

// find's tests before -delete / -exec narrow what the action reaches; a `.env` they exclude is not judged.
const ws = mkdtempSync(join(tmpdir(), 'tg-findf-'));
afterAll(() => rmSync(ws, { recursive: true, force: true }));
for (const d of ['src', 'secrets', 'build/__pycache__', 'node_modules/m'])
  mkdirSync(join(ws, d), { recursive: true });
for (const f of ['.env', 'src/a.ts', 'src/b.pyc', 'secrets/.env', 'build/__pycache__/x.pyc', 'app.log'])
  writeFileSync(join(ws, f), 'x');

const verdict = (cmd: string) => touchesEnv(extractAccesses(cmd, context(ws)).accesses) ?? 'clean';

describe('find: the tests before the action filter what it reaches', () => {
  it.each([
    "find . -name '*.pyc' -delete",
    'find . -name "*.log" -mtime +7 -delete',
    "find . -type f -name '*.ts' -exec wc -l {} +",
    'find . -name __pycache__ -type d -exec rm -rf {} +',
    "find . -type f -not -path './node_modules/*' -name '*.ts' -exec grep -l x {} +",
    "find src -iname '*.TS' -exec cat {} \\;",
  ])('%s does not reach .env (twin of a false deny)', (cmd) => {
    expect(verdict(cmd)).toBe('clean');
  });

  it.each([
    'find . -name .env -delete',
    "find . ! -name '*.ts' -delete",
    "find . -not -name '*.ts' -exec cat {} +",
    "find . -name '*.pyc' -o -name .env -delete",
    "find . \\( -name '*.pyc' \\) -delete",
    'find . -type d -name secrets -exec rm -rf {} +',
    "find . -iname '.ENV' -exec cat {} \\;",
    "find . -name '.e*' -delete",
    "find . -path '*/secrets/*' -exec cat {} +",
    "find . -name '*' -exec cat {} +",
    "find . -name '*.pyc' -exec cat {} \\; -o -exec cat {} \\;",
  ])('%s reaches .env (attack)', (cmd) => {
    expect(verdict(cmd)).not.toBe('clean');
  });
});

describe('tar -c: --exclude patterns before a member filter its walk (GNU tar 1.34 under strace)', () => {
  it.each([
    'tar czf /tmp/a.tgz --exclude=.env .',
    "tar czf /tmp/a.tgz --exclude '.env' --exclude=node_modules .",
    "tar cf /tmp/a.tar --exclude='*.env' --exclude=secrets src secrets .env",
    'tar -czf /tmp/a.tgz --exclude=.e* .',
  ])('%s does not reach .env (twin of a false deny)', (cmd) => {
    expect(verdict(cmd)).toBe('clean');
  });
  it.each([
    'tar czf /tmp/a.tgz . --exclude=.env',
    'tar czf /tmp/a.tgz --exclude=*.log .',
    'tar czf /tmp/a.tgz --exclude=/.env .',
    'tar czf /tmp/a.tgz --anchored --exclude=.env .',
    'tar czf /tmp/a.tgz --exclude=.ENV .',
    'tar czf /tmp/a.tgz --exclude=.env -T /dev/null secrets',
  ])('%s reaches .env (attack)', (cmd) => {
    expect(verdict(cmd)).not.toBe('clean');
  });
});

describe('zip -x/-i and rsync --exclude filter their walk (zip 3.0 and rsync 3.2 under strace)', () => {
  it.each([
    "zip -r /tmp/all.zip . -x '.env' 'secrets/*'",
    "zip -qr /tmp/all.zip . -x '*.env'",
    "zip -r /tmp/all.zip . -i '*.ts'",
    'rsync -a --exclude=.env ./ /tmp/copy/',
    "rsync -av --exclude '.env' --exclude node_modules . /tmp/copy",
    'rsync -a --exclude=secrets/ --exclude=/.env ./ /tmp/copy/',
  ])('%s does not reach .env (twin of a false deny)', (cmd) => {
    expect(verdict(cmd)).toBe('clean');
  });
  it.each([
    "zip -r /tmp/all.zip . -x '.env'", // zip's -x .env matches the top-level name only: secrets/.env is stored
    "zip -r /tmp/all.zip . -x '.env' -ws -x 'secrets/*'",
    "zip -r /tmp/all.zip . -x@list -x '.env'",
    'rsync -a --exclude=/.env ./ /tmp/copy/', // anchored: secrets/.env is copied
    "rsync -a --include='.env' --exclude=.env ./ /tmp/copy/",
    'rsync -a --exclude=.env --filter=": .rsync" ./ /tmp/copy/',
    'rsync -a --exclude=.env/ ./ /tmp/copy/', // a trailing slash matches directories only
    'rsync -a --exclude=.ENV ./ /tmp/copy/',
  ])('%s reaches .env (attack)', (cmd) => {
    expect(verdict(cmd)).not.toBe('clean');
  });
});
