import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Observable } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ApprovalAnswer,
  type ApprovalRequest,
  type ApprovalStrategy,
  sessionDirName,
  sessionFile,
} from '../src/index.js';
import { guardFor } from './helpers/guard.js';
import { makeWorkspace, type Workspace } from './helpers/workspace.js';

let ws: Workspace;
let dir: string;
beforeEach(() => {
  ws = makeWorkspace();
  dir = join(ws.root, 'sessions');
});
afterEach(() => ws.cleanup());

function answering(answer: ApprovalAnswer) {
  const asked: ApprovalRequest[] = [];
  const strategy: ApprovalStrategy = {
    name: 'scripted',
    ask: (r) => {
      asked.push(r);
      return new Observable((s) => s.next(answer));
    },
  };
  return { asked, strategy };
}

const write = (path: string) => ({ tool: 'write_file', args: { path } });

describe('session persistence', () => {
  it('grants survive a restart: a new guard on the same dir resumes the session without asking', async () => {
    const first = answering({ approved: true, grant: 'subtree' });
    await guardFor(ws, { strategy: first.strategy, dir }).check(write('secrets/a.txt'), ws.ctx('resume-me'));
    const file = sessionFile(dir, 'resume-me');
    expect(file).toBe(join(dir, 'resume-me', 'grants.json'));
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(saved).toMatchObject({
      version: 1,
      sessionId: 'resume-me',
      grants: [{ path: ws.secrets, scope: 'subtree' }],
    });
    // Atomic writes leave no temporary files behind.
    expect(readdirSync(join(dir, 'resume-me'))).toEqual(['grants.json']);

    const second = answering({ approved: false });
    const restarted = guardFor(ws, { strategy: second.strategy, dir });
    expect((await restarted.check(write('secrets/deep/b'), ws.ctx('resume-me'))).approval?.by).toBe('grant');
    expect((await restarted.check(write('secrets/deep/b'), ws.ctx('another'))).action).toBe('deny');
    expect(second.asked).toHaveLength(1);
    expect(second.asked[0]!.sessionId).toBe('another');
  });

  it('remaining uses and expiry survive a restart (resuming does not reset them)', async () => {
    let clock = 10_000;
    const now = () => clock;
    const s1 = answering({ approved: true, grant: 'directory', maxUses: 2, ttlMs: 1_000 });
    const g1 = guardFor(ws, { strategy: s1.strategy, dir, now });
    await g1.check(write('secrets/a'), ws.ctx('s'));
    expect((await g1.check(write('secrets/a'), ws.ctx('s'))).approval?.by).toBe('grant');
    const s2 = answering({ approved: false });
    const g2 = guardFor(ws, { strategy: s2.strategy, dir, now });
    expect((await g2.check(write('secrets/a'), ws.ctx('s'))).approval?.by).toBe('grant');
    expect((await g2.check(write('secrets/a'), ws.ctx('s'))).action).toBe('deny');
    const s3 = answering({ approved: true, grant: 'directory', ttlMs: 1_000 });
    const g3 = guardFor(ws, { strategy: s3.strategy, dir, now });
    await g3.check(write('secrets/a'), ws.ctx('t'));
    clock += 2_000;
    const g4 = guardFor(ws, { strategy: answering({ approved: false }).strategy, dir, now });
    expect((await g4.check(write('secrets/a'), ws.ctx('t'))).action).toBe('deny');
  });

  it('concurrent approvals in several sessions all land in their own files, intact', async () => {
    const s = answering({ approved: true, grant: 'directory' });
    const guard = guardFor(ws, { strategy: s.strategy, dir });
    const sessions = ['p1', 'p2', 'p3'];
    const dirs = [0, 1, 2, 3, 4, 5];
    for (const d of dirs) mkdirSync(join(ws.secrets, `d${d}`));
    await Promise.all(
      sessions.flatMap((id) => dirs.map((d) => guard.check(write(`secrets/d${d}/f`), ws.ctx(id)))),
    );
    for (const id of sessions) {
      const saved = JSON.parse(readFileSync(sessionFile(dir, id), 'utf8'));
      expect(saved.sessionId).toBe(id);
      expect(saved.grants.map((g: { path: string }) => g.path).sort()).toEqual(
        dirs.map((d) => join(ws.secrets, `d${d}`)).sort(),
      );
      expect(saved.confirmations).toBe(dirs.length);
      expect(readdirSync(join(dir, id))).toEqual(['grants.json']);
    }
  });

  it('a cancelled session stays cancelled after a restart', async () => {
    await guardFor(ws, { strategy: answering({ approved: false, cancelSession: true }).strategy, dir }).check(
      write('secrets/a'),
      ws.ctx('q'),
    );
    const later = answering({ approved: true });
    const d = await guardFor(ws, { strategy: later.strategy, dir }).check(write('secrets/a'), ws.ctx('q'));
    expect(d.envelope?.code).toBe('SESSION_CANCELLED');
    expect(later.asked).toHaveLength(0);
  });

  it.each([
    ['not JSON', '{"version": 1, "grants": ['],
    [
      'wrong shape',
      '{"version": 1, "sessionId": "c", "cancelled": false, "confirmations": 0, "grants": [{"op": "write", "scope": "subtree", "path": "relative"}]}',
    ],
    [
      'another session',
      '{"version": 1, "sessionId": "other", "cancelled": false, "confirmations": 0, "grants": []}',
    ],
    ['an array', '[]'],
  ])(
    'a corrupt file (%s) is ignored with a clear warning, and the session asks again',
    async (_name, text) => {
      mkdirSync(join(dir, 'c'), { recursive: true });
      writeFileSync(join(dir, 'c', 'grants.json'), text);
      const s = answering({ approved: true, grant: 'subtree' });
      const guard = guardFor(ws, { strategy: s.strategy, dir });
      const warnings: { message: string }[] = [];
      guard.events.on('approvals:warning', (w) => warnings.push(w));
      const d = await guard.check(write('secrets/a'), ws.ctx('c'));
      expect(d.approval?.by).toBe('scripted');
      expect(s.asked).toHaveLength(1);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.message).toMatch(/ignoring corrupt approvals file .*grants\.json/);
      // The next save replaces the corrupt file with a valid one.
      expect(JSON.parse(readFileSync(join(dir, 'c', 'grants.json'), 'utf8')).sessionId).toBe('c');
    },
  );

  it('a grant smuggled in through the file must still be well formed: bad ops or scopes are refused', async () => {
    mkdirSync(join(dir, 'x'), { recursive: true });
    const bad = {
      version: 1,
      sessionId: 'x',
      cancelled: false,
      confirmations: 0,
      grants: [{ op: 'write', scope: 'everything', path: '/', createdAt: 0, by: 'x' }],
    };
    writeFileSync(join(dir, 'x', 'grants.json'), JSON.stringify(bad));
    const s = answering({ approved: false });
    const d = await guardFor(ws, { strategy: s.strategy, dir }).check(write('secrets/a'), ws.ctx('x'));
    expect(d.action).toBe('deny');
    expect(s.asked).toHaveLength(1);
  });

  it('an unwritable dir is a warning, not a crash; the answer still stands', async () => {
    writeFileSync(join(ws.root, 'blocker'), 'a file where the dir should be');
    const s = answering({ approved: true, grant: 'directory' });
    const guard = guardFor(ws, { strategy: s.strategy, dir: join(ws.root, 'blocker') });
    const warnings: unknown[] = [];
    guard.events.on('approvals:warning', (w) => warnings.push(w));
    const d = await guard.check(write('secrets/a'), ws.ctx('w'));
    expect(d.action).toBe('allow');
    expect(warnings.length).toBeGreaterThan(0);
  });
});

describe('session ids on disk', () => {
  it.each(['../escape', '../../etc', '/abs/path', '.', '..', 'a/b', 'a\\b', 'x\u0000y', '', 'é🙂'])(
    'session id %j maps to one folder inside dir',
    (id) => {
      const name = sessionDirName(id);
      expect(name).not.toMatch(/[/\\\u0000]/);
      expect(name).not.toBe('.');
      expect(name).not.toBe('..');
      expect(resolve(dir, name).startsWith(`${dir}/`)).toBe(true);
    },
  );

  it('distinct ids never share a folder (no sanitising collisions)', () => {
    const ids = [
      'a/b',
      'a_b',
      'a%2Fb',
      'a.b',
      'a%2Eb',
      '..',
      '%2E%2E',
      'A',
      'a',
      'x'.repeat(300),
      `${'x'.repeat(299)}y`,
    ];
    const names = ids.map(sessionDirName);
    expect(new Set(names).size).toBe(ids.length);
    expect(names.every((n) => n.length <= 128 + 8)).toBe(true);
  });

  it('a hostile session id cannot write outside dir through the plugin', async () => {
    const s = answering({ approved: true, grant: 'directory' });
    await guardFor(ws, { strategy: s.strategy, dir }).check(write('secrets/a'), ws.ctx('../../escaped'));
    expect(existsSync(join(ws.root, 'escaped'))).toBe(false);
    expect(existsSync(join(dir, '..', 'escaped'))).toBe(false);
    expect(readdirSync(dir)).toEqual([sessionDirName('../../escaped')]);
  });
});
