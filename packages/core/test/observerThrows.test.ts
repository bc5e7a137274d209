import { createGuard, type PluginFailure } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { call, ctx, denyUnder, pathExtractor, plugin } from './helpers.js';

// issue 14: an observer that threw `Object.create(null)` crashed the host ("Cannot convert object to primitive
// value") while the failure was being reported; 0 of 4 decisions came back.
const revoked = Proxy.revocable({}, {});
revoked.revoke();
const weird: Array<[string, () => unknown]> = [
  ['Object.create(null)', () => Object.create(null)],
  ['a symbol', () => Symbol('boom')],
  ['undefined', () => undefined],
  ['null', () => null],
  [
    'an object whose toString throws',
    () => ({
      toString: () => {
        throw new Error('nope');
      },
    }),
  ],
  ['a revoked proxy', () => revoked.proxy],
  ['an Error whose message is not a string', () => Object.assign(new Error(), { message: 42 })],
];

describe('observers: any thrown value is contained and reported, the decision stands', () => {
  for (const [name, make] of weird) {
    it(`sync throw, async rejection and thenable of ${name}`, async () => {
      const evil = plugin('evil', (hooks) => {
        hooks.onViolation.tap('x', () => {
          throw make();
        });
        hooks.onDecision.tap('x', () => {
          throw make();
        });
        hooks.onDecision.tapPromise('y', () => Promise.reject(make()));
        hooks.onViolation.tapPromise('y', async () => {
          throw make();
        });
        // A sync tap returning a rejected promise: reported too.
        hooks.afterToolCall.tap('z', () => Promise.reject(make()) as never);
      });
      const g = createGuard({ plugins: [pathExtractor(), denyUnder('/etc'), evil] });
      const errors: PluginFailure[] = [];
      g.events.on('observer-error', (e: PluginFailure) => errors.push(e));
      const decisions = await Promise.all([
        g.check(call('read_file', { path: '/etc/passwd' }), ctx()),
        g.check(call('read_file', { path: '/ws/a' }), ctx()),
        g.check(call('read_file', { path: '/etc/shadow' }), ctx()),
        g.check(call('read_file', { path: '/ws/b' }), ctx()),
      ]);
      expect(decisions.map((d) => d.action)).toEqual(['deny', 'allow', 'deny', 'allow']);
      await new Promise((r) => setTimeout(r, 10));
      // 2 sync + 2 async per deny (4 observers), 1 + 1 per allow.
      expect(errors.length).toBe(12);
      for (const e of errors) {
        expect(e.plugin).toBe('evil');
        expect(typeof e.message).toBe('string');
      }
    });
  }

  it('a wrapped tool whose afterToolCall observer throws Object.create(null) still returns its result', async () => {
    const evil = plugin('evil', (hooks) => {
      hooks.afterToolCall.tap('x', () => {
        throw Object.create(null);
      });
    });
    const g = createGuard({ plugins: [pathExtractor(), denyUnder('/etc'), evil] });
    const errors: unknown[] = [];
    g.events.on('observer-error', (e) => errors.push(e));
    const read = g.wrap('read_file', async (args: { path: string }) => `read ${args.path}`);
    expect(await read({ path: '/ws/a' }, ctx())).toBe('read /ws/a');
    expect(errors).toHaveLength(1);
  });

  it('a listener of observer-error that itself throws breaks nothing', async () => {
    const evil = plugin('evil', (hooks) => {
      hooks.onDecision.tap('x', () => {
        throw Object.create(null);
      });
    });
    const g = createGuard({ plugins: [pathExtractor(), denyUnder('/etc'), evil] });
    g.events.on('observer-error', () => {
      throw Object.create(null);
    });
    expect((await g.check(call('read_file', { path: '/etc/x' }), ctx())).action).toBe('deny');
  });
});

describe('a policy tap that throws an unprintable value fails closed with PLUGIN_ERROR', () => {
  for (const [name, make] of weird) {
    it(`beforeToolCall throws ${name}`, async () => {
      const evil = {
        ...plugin('evil', (hooks) => {
          hooks.beforeToolCall.tap('x', () => {
            throw make();
          });
        }),
        policy: true,
      };
      const g = createGuard({ plugins: [pathExtractor(), evil] });
      const d = await g.check(call('read_file', { path: '/ws/a' }), ctx());
      expect(d.action).toBe('deny');
      expect(d.reasons[0]?.code).toBe('PLUGIN_ERROR');
      expect(d.reasons[0]?.plugin).toBe('evil');
    });
  }
});
