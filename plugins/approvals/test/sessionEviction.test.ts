import { join } from 'node:path';
import { Observable } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalAnswer, ApprovalRequest, ApprovalStrategy } from '../src/index.js';
import { guardFor } from './helpers/guard.js';
import { makeWorkspace, type Workspace } from './helpers/workspace.js';

// issue 14: core forgets sessions by LRU and idle time (100,000 sessions grew the heap by 135 MB). What must
// not be forgotten: grants where a `dir` persists them, and a cancellation, dir or not.
let ws: Workspace;
beforeEach(() => {
  ws = makeWorkspace();
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

describe('approvals under core session eviction', () => {
  it('with a dir, a grant outlives the eviction of its session: no second question', async () => {
    const s = answering({ approved: true, grant: 'subtree' });
    const guard = guardFor(
      ws,
      { strategy: s.strategy, dir: join(ws.root, 'sessions') },
      { sessions: { max: 2 } },
    );
    expect((await guard.check(write('secrets/a.txt'), ws.ctx('kept'))).action).toBe('allow');
    for (let i = 0; i < 5; i++) await guard.check(write('notes.txt'), ws.ctx(`other-${i}`));
    expect((await guard.check(write('secrets/b.txt'), ws.ctx('kept'))).action).toBe('allow');
    expect(s.asked).toHaveLength(1);
  });

  it('without a dir, an evicted session is asked again (more questions, never fewer)', async () => {
    const s = answering({ approved: true, grant: 'subtree' });
    const guard = guardFor(ws, { strategy: s.strategy }, { sessions: { max: 2 } });
    await guard.check(write('secrets/a.txt'), ws.ctx('forgotten'));
    for (let i = 0; i < 5; i++) await guard.check(write('notes.txt'), ws.ctx(`other-${i}`));
    await guard.check(write('secrets/b.txt'), ws.ctx('forgotten'));
    expect(s.asked).toHaveLength(2);
  });

  it('a cancelled session stays cancelled after eviction, also for calls that need no approval', async () => {
    const s = answering({ approved: false, cancelSession: true });
    const guard = guardFor(ws, { strategy: s.strategy }, { sessions: { max: 2 } });
    expect((await guard.check(write('secrets/a.txt'), ws.ctx('quit'))).action).toBe('deny');
    for (let i = 0; i < 5; i++) await guard.check(write('notes.txt'), ws.ctx(`other-${i}`));
    const later = await guard.check(write('notes.txt'), ws.ctx('quit'));
    expect(later.action).toBe('deny');
    expect(later.reasons[0]?.code).toBe('SESSION_CANCELLED');
    expect((await guard.check(write('notes.txt'), ws.ctx('other-4'))).action).toBe('allow');
  });
});
