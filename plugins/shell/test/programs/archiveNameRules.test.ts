import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallContext, isWithin } from '@toolgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractAccesses } from '../../src/index.js';
import { touchesEnv } from './envJudge.js';

// unzip's and tar's own name rules, checked against the real programs (Info-ZIP unzip 6.0, GNU tar 1.34):
// each case runs for real in a fresh copy of a scratch tree, and the guard's verdict must match what the run
// did — an attack that writes `.env` or through to the secret canary is denied, its twin allowed. strace of
// the same runs (kept in the report of issue 22): unzip tries NAME, NAME.zip, NAME.ZIP; unzip -o lstat()s a
// member's path, unlink()s a symlink there and creates the file; GNU tar opens O_EXCL (or O_NOFOLLOW with
// --overwrite), gets EEXIST/ELOOP, unlinkat()s the link and creates the file.

let root: string;
let template: string;
let secret: string;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-archnames-')));
  template = join(root, 'template');
  secret = join(root, 'secret');
  mkdirSync(secret);
  writeFileSync(join(secret, 'canary'), 'SECRET');
  const m = join(root, 'm');
  mkdirSync(m);
  mkdirSync(template);
  writeFileSync(join(m, 'a.txt'), 'new');
  writeFileSync(join(m, '.env'), 'K=1');
  const run = (...argv: string[]) => spawnSync(argv[0]!, argv.slice(1), { cwd: m, stdio: 'ignore' });
  run('zip', '-q', join(template, 'a.zip'), 'a.txt');
  run('zip', '-q', join(template, 'e.zip'), '.env', 'a.txt');
  run('tar', 'cf', join(template, 'a.tar'), 'a.txt');
  run('tar', 'cf', join(template, 'e.tar'), '.env', 'a.txt');
  rmSync(m, { recursive: true });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
/** A fresh workspace with the archives; `link`: `a.txt` is a symlink to the secret canary. */
function workspace(link: boolean): string {
  const ws = join(root, `ws${n++}`);
  cpSync(template, ws, { recursive: true });
  if (link) symlinkSync(join(secret, 'canary'), join(ws, 'a.txt'));
  return ws;
}

/** Runs the command for real: did it create `.env` or write the canary? */
function effect(cmd: string, link: boolean): boolean {
  writeFileSync(join(secret, 'canary'), 'SECRET');
  const ws = workspace(link);
  spawnSync('bash', ['-c', cmd], { cwd: ws, input: '', timeout: 10000 });
  const hit = existsSync(join(ws, '.env')) || readFileSync(join(secret, 'canary'), 'utf8') !== 'SECRET';
  return hit;
}

/**
 * The verdict under a `**\/.env` deny and a deny of the secret directory: uncertain, a subtree write whose
 * names are not known (the policy takes the worst case), a path or subtree reaching `.env` or the secret.
 */
function decide(cmd: string, link: boolean): string {
  const ws = workspace(link);
  const ctx: CallContext = { sessionId: 's', agentId: 'a', cwd: ws, workspace: ws, home: root, env: {} };
  const { accesses } = extractAccesses(cmd, ctx);
  for (const a of accesses) {
    if (a.realPath !== null && isWithin(a.realPath, secret)) return 'deny';
  }
  return touchesEnv(accesses) === null ? 'allow' : 'deny';
}

describe('unzip and tar name rules: attacks write .env and are denied', () => {
  it.each([
    // unzip appends .zip (then .ZIP) to an archive name that does not exist.
    ['unzip -o e', false],
    ['unzip -oq e', false],
    // unzip expands its own wildcards in the archive name.
    ["unzip -o 'e*'", false],
    ["unzip -o '[e].zip'", false],
    // Several values of one loop variable: the second archive is extracted too, not a member pattern.
    ['for f in a.zip e.zip; do unzip -o "$f"; done', false],
    ['for f in a.tar e.tar; do tar xf "$f"; done', false],
    ['for f in *.zip; do unzip -o "$f"; done', false],
    // zip appends .zip to an archive name without an extension: the line writes the archive unzip opens.
    ['mkdir d && cd d && unzip -q ../e.zip && zip -q ../x .env && cd .. && rm -r d && unzip -o x', false],
    // An exclusion that does not cover .env.
    ['tar xf e.tar --exclude=a.txt', false],
    ['unzip -o e.zip -x a.txt', false],
    ["unzip -o e.zip '*.env'", false],
  ])('%s', (cmd, link) => {
    expect(effect(cmd, link)).toBe(true);
    expect(decide(cmd, link)).toBe('deny');
  });
});

describe('unzip and tar: twins, now allowed', () => {
  it.each([
    // The member's path is a symlink to the secret: both programs replace the link.
    ['unzip -o a.zip', true],
    ['unzip -oq a', true],
    ['tar xf a.tar', true],
    ['tar --overwrite -xf a.tar', true],
    // Exclusions and member selection as the programs honour them.
    ['tar xf e.tar --exclude=.env', false],
    ["tar --exclude='.e*' -xf e.tar", false],
    ['unzip -o e.zip -x .env', false],
    ["unzip -o e.zip '*.txt'", false],
    ['for f in a.zip; do unzip -o "$f"; done', false],
  ])('%s', (cmd, link) => {
    expect(effect(cmd, link)).toBe(false);
    expect(decide(cmd, link)).toBe('allow');
  });
});
