import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createGuard } from '@toolgate/core';
import { Observable } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ApprovalAnswer, type ApprovalRequest, type ApprovalStrategy, approvals } from '../src/index.js';
import { guardFor } from './helpers/guard.js';
import { testPolicy } from './helpers/testPolicy.js';
import { makeWorkspace, type Workspace } from './helpers/workspace.js';

let ws: Workspace;
beforeEach(() => {
  ws = makeWorkspace();
});
afterEach(() => ws.cleanup());

/** Answers every question with `answer` and counts the questions. */
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
const read = (path: string) => ({ tool: 'read_file', args: { path } });

describe('session grants', () => {
  it('once: every call is asked again', async () => {
    const { asked, strategy } = answering({ approved: true, grant: 'once' });
    const guard = guardFor(ws, { strategy });
    for (let i = 0; i < 3; i++)
      expect((await guard.check(write('secrets/a.txt'), ws.ctx('s'))).action).toBe('allow');
    expect(asked).toHaveLength(3);
  });

  it('directory (Y): answers files directly in the directory, not subdirectories, not the parent', async () => {
    const { asked, strategy } = answering({ approved: true, grant: 'directory' });
    const guard = guardFor(ws, { strategy });
    const ctx = ws.ctx('s');
    const first = await guard.check(write('secrets/a.txt'), ctx);
    expect(first.approval?.grant).toMatchObject({
      scope: 'directory',
      grants: [{ path: ws.secrets, op: 'write' }],
    });
    const again = await guard.check(write('secrets/other.txt'), ctx);
    expect(again.approval).toMatchObject({ approved: true, by: 'grant' });
    expect(asked).toHaveLength(1);
    await guard.check(write('secrets/deep/b.txt'), ctx);
    expect(asked).toHaveLength(2);
  });

  it('subtree (a): answers everything beneath, including an rm -r inside it', async () => {
    const { asked, strategy } = answering({ approved: true, grant: 'subtree' });
    const guard = guardFor(ws, { strategy });
    const ctx = ws.ctx('s');
    await guard.check(write('secrets/a.txt'), ctx);
    expect((await guard.check(write('secrets/deep/x/y.txt'), ctx)).approval?.by).toBe('grant');
    expect((await guard.check({ tool: 'rm_r', args: { path: 'secrets/deep' } }, ctx)).approval?.by).toBe(
      'grant',
    );
    expect(asked).toHaveLength(1);
  });

  it('never widens: a write grant on secrets/ answers neither the parent, a sibling prefix, nor reads', async () => {
    const { asked, strategy: first } = answering({ approved: true, grant: 'subtree' });
    // Only the first answer grants anything; later ones approve once, so every later question is visible.
    const strategy: ApprovalStrategy = {
      name: 'scripted',
      ask: (r) => {
        if (asked.length === 0) return first.ask(r);
        asked.push(r);
        return new Observable((s) => s.next({ approved: true }));
      },
    };
    // Prompt on the whole workspace, so the parent and the look-alike sibling need approval too.
    const workspace = ws.ctx('s').workspace;
    const guard = createGuard({ plugins: [testPolicy({ prompt: [workspace] }), approvals({ strategy })] });
    const ctx = ws.ctx('s');
    await guard.check({ tool: 'rm_r', args: { path: 'secrets' } }, ctx);
    expect(asked).toHaveLength(1);
    expect((await guard.check(write('secrets/z'), ctx)).approval?.by).toBe('grant');
    expect((await guard.check(write('secrets/deep/z'), ctx)).approval?.by).toBe('grant');
    expect((await guard.check(write('top.txt'), ctx)).approval?.by).toBe('scripted');
    expect((await guard.check(write('secrets-old/z'), ctx)).approval?.by).toBe('scripted');
    expect((await guard.check({ tool: 'rm_r', args: { path: '.' } }, ctx)).approval?.by).toBe('scripted');
    expect((await guard.check(read('secrets/z'), ctx)).approval?.by).toBe('scripted');
    expect(asked).toHaveLength(5);
  });

  it('a subtree access is not answered by a directory grant on the same folder', async () => {
    const { asked, strategy } = answering({ approved: true, grant: 'directory' });
    const guard = guardFor(ws, { strategy });
    const ctx = ws.ctx('s');
    await guard.check(write('secrets/deep/a.txt'), ctx);
    await guard.check({ tool: 'rm_r', args: { path: 'secrets/deep' } }, ctx);
    expect(asked).toHaveLength(2);
  });

  it('a symlink inside a granted directory that points elsewhere is judged where it lands', async () => {
    // secrets/deep is granted; secrets/deep/out -> secrets (outside the granted subtree).
    const { asked, strategy } = answering({ approved: true, grant: 'subtree' });
    const guard = guardFor(ws, { strategy });
    const ctx = ws.ctx('s');
    await guard.check(write('secrets/deep/a.txt'), ctx);
    symlinkSync(ws.secrets, join(ws.secrets, 'deep', 'out'));
    const d = await guard.check(write('secrets/deep/out/escaped.txt'), ctx);
    expect(d.accesses[0]!.realPath).toBe(join(ws.secrets, 'escaped.txt'));
    expect(d.approval?.by).toBe('scripted');
    expect(asked).toHaveLength(2);
  });

  it('a link created after the grant is not cached: the next call resolves it afresh', async () => {
    const { asked, strategy } = answering({ approved: true, grant: 'directory' });
    const guard = guardFor(ws, { strategy });
    const ctx = ws.ctx('s');
    mkdirSync(join(ws.secrets, 'deep', 'd'));
    await guard.check(write('secrets/deep/d/a.txt'), ctx);
    writeFileSync(join(ws.secrets, 'deep', 'd', 'b.txt'), 'x');
    expect((await guard.check(write('secrets/deep/d/b.txt'), ctx)).approval?.by).toBe('grant');
    symlinkSync(join(ws.secrets, 'x.txt'), join(ws.secrets, 'deep', 'd', 'c.txt'));
    expect((await guard.check(write('secrets/deep/d/c.txt'), ctx)).approval?.by).toBe('scripted');
    expect(asked).toHaveLength(2);
  });

  it('expiry: a grant stops answering once its time is up (grants.ttlMs, measured on the clock given)', async () => {
    let clock = 1_000;
    const { asked, strategy } = answering({ approved: true, grant: 'directory' });
    const guard = guardFor(ws, { strategy, grants: { ttlMs: 500 }, now: () => clock });
    const ctx = ws.ctx('s');
    await guard.check(write('secrets/a.txt'), ctx);
    clock += 499;
    expect((await guard.check(write('secrets/a.txt'), ctx)).approval?.by).toBe('grant');
    clock += 1;
    expect((await guard.check(write('secrets/a.txt'), ctx)).approval?.by).toBe('scripted');
    expect(asked).toHaveLength(2);
  });

  it('expiry with the real clock and a per-answer ttl', async () => {
    const { asked, strategy } = answering({ approved: true, grant: 'directory', ttlMs: 60 });
    const guard = guardFor(ws, { strategy });
    const ctx = ws.ctx('s');
    await guard.check(write('secrets/a.txt'), ctx);
    expect((await guard.check(write('secrets/a.txt'), ctx)).approval?.by).toBe('grant');
    await new Promise((r) => setTimeout(r, 80));
    expect((await guard.check(write('secrets/a.txt'), ctx)).approval?.by).toBe('scripted');
    expect(asked).toHaveLength(2);
  });

  it('max uses: a grant answers at most N later calls', async () => {
    const { asked, strategy } = answering({ approved: true, grant: 'subtree', maxUses: 2 });
    const guard = guardFor(ws, { strategy });
    const ctx = ws.ctx('s');
    await guard.check(write('secrets/a.txt'), ctx);
    const bys = [];
    for (let i = 0; i < 3; i++) bys.push((await guard.check(write(`secrets/f${i}`), ctx)).approval?.by);
    expect(bys).toEqual(['grant', 'grant', 'scripted']);
    expect(asked).toHaveLength(2);
  });

  it('a multi-path call is answered by grants only when every path is covered', async () => {
    const { asked, strategy } = answering({ approved: true, grant: 'directory' });
    const guard = guardFor(ws, { strategy });
    const ctx = ws.ctx('s');
    await guard.check(write('secrets/a.txt'), ctx);
    const d = await guard.check(
      { tool: 'write_many', args: { paths: ['secrets/b', 'secrets/deep/c'] } },
      ctx,
    );
    expect(d.approval?.by).toBe('scripted');
    expect(asked).toHaveLength(2);
    expect(asked[1]!.items).toHaveLength(2);
  });

  it('a denial grants nothing', async () => {
    const { asked, strategy } = answering({ approved: false, grant: 'subtree' });
    const guard = guardFor(ws, { strategy });
    const ctx = ws.ctx('s');
    expect((await guard.check(write('secrets/a.txt'), ctx)).action).toBe('deny');
    expect((await guard.check(write('secrets/a.txt'), ctx)).action).toBe('deny');
    expect(asked).toHaveLength(2);
  });
});

describe('grants under concurrency', () => {
  it('max uses are never double-spent by concurrent calls', async () => {
    const asked: ApprovalRequest[] = [];
    let first = true;
    const strategy: ApprovalStrategy = {
      name: 'scripted',
      ask: (r) => {
        asked.push(r);
        const answer: ApprovalAnswer = first
          ? { approved: true, grant: 'subtree', maxUses: 2 }
          : { approved: false };
        first = false;
        return new Observable((s) => s.next(answer));
      },
    };
    const guard = guardFor(ws, { strategy });
    const ctx = ws.ctx('s');
    await guard.check(write('secrets/a'), ctx);
    const out = await Promise.all([0, 1, 2, 3, 4].map((i) => guard.check(write(`secrets/c${i}`), ctx)));
    expect(out.filter((d) => d.approval?.by === 'grant')).toHaveLength(2);
    expect(out.filter((d) => d.action === 'deny')).toHaveLength(3);
  });
});
