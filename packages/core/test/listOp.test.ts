import { createGuard, type GuardPlugin, Stage } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { call, ctx, denyUnder, plugin } from './helpers.js';

// The list operation end to end through core: extractors may emit it, verdicts and envelopes carry it.
const lister = (extra: Record<string, unknown> = {}): GuardPlugin =>
  plugin('lister', (hooks) => {
    hooks.collectAccesses.tap({ stage: Stage.EXTRACT }, (acc, c, state) => [
      ...acc,
      {
        ...state.access(String(c.args.path), 'list', { origin: 'test:args.path', scope: 'subtree' }),
        ...extra,
      },
    ]);
  });

describe('list operation', () => {
  it('a list access is accepted and kept as list', async () => {
    const guard = createGuard({ plugins: [lister(), { ...plugin('p', () => {}), policy: true }] });
    const d = await guard.check(call('list_directory', { path: '/ws/src' }), ctx());
    expect(d.action).toBe('allow');
    expect(d.accesses[0]?.op).toBe('list');
  });

  it('a denied list says operation "list" in the envelope', async () => {
    const guard = createGuard({ plugins: [lister(), denyUnder('/home/u/.ssh')] });
    const d = await guard.check(call('list_directory', { path: '/home/u/.ssh' }), ctx());
    expect(d.action).toBe('deny');
    expect(d.envelope?.operation).toBe('list');
    expect(d.envelope?.path).toBe('/home/u/.ssh');
  });

  it.each([
    [{ op: 'stat' }, /access.op must be "read", "write" or "list"/],
    [{ followLinks: 'yes' }, /followLinks must be a boolean/],
    [{ unknownContents: 1 }, /unknownContents must be a string/],
    [{ filter: { name: 'x' } }, /filter must be/],
  ])('a malformed access field fails closed (%j)', async (extra, message) => {
    const guard = createGuard({ plugins: [lister(extra), { ...plugin('p', () => {}), policy: true }] });
    const d = await guard.check(call('list_directory', { path: '/ws' }), ctx());
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.code).toBe('PLUGIN_ERROR');
    expect(d.reasons[0]?.reason).toMatch(message);
  });
});
