import { createGuard, type GuardPlugin } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { call, ctx, plugin, sleep } from './helpers.js';

// issue 14: sessions were never forgotten. Each session's store counts its calls, so a forgotten session
// shows as a count starting again at 1.
function counter(seen: Map<string, number[]>, hold?: Promise<void>): GuardPlugin {
  return plugin('counter', (hooks) => {
    hooks.beforeToolCall.tapPromise('x', async (_c, state) => {
      const n = ((state.session.get('counter:n') as number | undefined) ?? 0) + 1;
      state.session.set('counter:n', n);
      const list = seen.get(state.ctx.sessionId) ?? [];
      list.push(n);
      seen.set(state.ctx.sessionId, list);
      if (hold && state.ctx.sessionId === 'busy') await hold;
      return undefined;
    });
  });
}

describe('core sessions: bounded by count (LRU) and idle time', () => {
  it('the least recently used session is forgotten past `max`; recent ones are kept', async () => {
    const seen = new Map<string, number[]>();
    const g = createGuard({ plugins: [counter(seen)], sessions: { max: 3 } });
    for (const id of ['a', 'b', 'c', 'a', 'd', 'a', 'b'])
      await g.check(call('web', {}), ctx({ sessionId: id }));
    // `a` was used throughout and kept its count; `b` was the oldest when `d` came and started over.
    expect(seen.get('a')).toEqual([1, 2, 3]);
    expect(seen.get('b')).toEqual([1, 1]);
  });

  it('a session idle longer than idleMs is forgotten when a new session arrives', async () => {
    const seen = new Map<string, number[]>();
    const g = createGuard({ plugins: [counter(seen)], sessions: { idleMs: 30 } });
    await g.check(call('web', {}), ctx({ sessionId: 'idle' }));
    await sleep(50);
    await g.check(call('web', {}), ctx({ sessionId: 'new' }));
    await g.check(call('web', {}), ctx({ sessionId: 'idle' }));
    expect(seen.get('idle')).toEqual([1, 1]);
  });

  it('a session with a call in flight is never forgotten under it', async () => {
    const seen = new Map<string, number[]>();
    let release = () => {};
    const hold = new Promise<void>((r) => {
      release = r;
    });
    const g = createGuard({ plugins: [counter(seen, hold)], sessions: { max: 2 } });
    const pending = g.check(call('web', {}), ctx({ sessionId: 'busy' }));
    await sleep(5);
    for (let i = 0; i < 10; i++) await g.check(call('web', {}), ctx({ sessionId: `s${i}` }));
    const second = g.check(call('web', {}), ctx({ sessionId: 'busy' }));
    release();
    await Promise.all([pending, second]);
    expect(seen.get('busy')).toEqual([1, 2]);
  });

  it('invalid session limits fail at construction', () => {
    for (const sessions of [{ max: 0 }, { max: 1.5 }, { idleMs: -1 }, { idleMs: 'x' }, { other: 1 }, null])
      expect(() => createGuard({ sessions: sessions as never })).toThrow(/sessions/);
  });
});
