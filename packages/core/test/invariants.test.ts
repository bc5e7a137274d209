import { createGuard, type GuardPlugin, Stage, ToolgateError } from '@toolgate/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { call, ctx, denyUnder, pathExtractor, plugin, sleep } from './helpers.js';

describe('invariant 1: verdicts only tighten', () => {
  it('a plugin returning "allow" does not end the chain: a later deny still wins', async () => {
    const allower = plugin('allower', (hooks) => {
      hooks.beforeToolCall.tap({ stage: Stage.GUARD }, () => ({ action: 'allow' }) as never);
    });
    const guard = createGuard({ plugins: [pathExtractor(), allower, denyUnder('/etc')] });
    const d = await guard.check(call('read_file', { path: '/etc/passwd' }), ctx());
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.plugin).toBe('deny-under');
  });

  it('a later plugin cannot turn an earlier deny into an allow (the chain stops at the deny)', async () => {
    let laterRan = false;
    const later = plugin('later', (hooks) => {
      hooks.beforeToolCall.tap({ stage: Stage.POLICY + 1 }, () => {
        laterRan = true;
        return undefined;
      });
    });
    const guard = createGuard({ plugins: [pathExtractor(), later, denyUnder('/etc')] });
    const d = await guard.check(call('read_file', { path: '/etc/shadow' }), ctx());
    expect(d.action).toBe('deny');
    expect(laterRan).toBe(false);
  });

  it('an extractor cannot remove or replace an earlier access', async () => {
    const dropper = plugin('dropper', (hooks) => {
      hooks.collectAccesses.tap({ stage: Stage.ENRICH }, () => []);
    });
    const guard = createGuard({ plugins: [pathExtractor(), dropper, denyUnder('/etc')] });
    const d = await guard.check(call('read_file', { path: '/etc/passwd' }), ctx());
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.code).toBe('PLUGIN_ERROR');
    expect(d.reasons[0]?.reason).toMatch(/dropper.*collectAccesses.*only append/);
  });

  it('a prompt plus a deny is a deny, and no approver is asked', async () => {
    let asked = 0;
    const prompter = plugin('prompter', (hooks) => {
      hooks.beforeToolCall.tap({ stage: Stage.GUARD }, () => ({
        action: 'prompt',
        code: 'PATH_PROMPT',
        reason: 'ask',
      }));
      hooks.onPrompt.tap('x', () => {
        asked++;
        return { approved: true };
      });
    });
    const guard = createGuard({ plugins: [pathExtractor(), prompter, denyUnder('/etc')] });
    const d = await guard.check(call('read_file', { path: '/etc/passwd' }), ctx());
    expect(d.action).toBe('deny');
    expect(asked).toBe(0);
    expect(d.reasons.map((r) => r.action)).toEqual(['deny', 'prompt']);
  });

  it('property: adding a denying plugin anywhere in a stack never turns a deny into an allow', async () => {
    const kinds = fc.constantFrom('noop', 'allow-return', 'prompt', 'deny');
    await fc.assert(
      fc.asyncProperty(fc.array(kinds, { maxLength: 6 }), fc.nat(6), async (stack, at) => {
        const make = (kind: string, i: number) =>
          plugin(`${kind}-${i}`, (hooks) => {
            hooks.beforeToolCall.tap({ stage: i }, () =>
              kind === 'allow-return'
                ? ({ action: 'allow' } as never)
                : kind === 'prompt'
                  ? { action: 'prompt', code: 'PATH_PROMPT', reason: 'p' }
                  : kind === 'deny'
                    ? { action: 'deny', code: 'PATH_DENIED', reason: 'd' }
                    : undefined,
            );
          });
        const plugins = stack.map(make);
        const withDeny = [...plugins];
        withDeny.splice(Math.min(at, plugins.length), 0, make('deny', 99));
        const a = await createGuard({ plugins: [pathExtractor(), ...withDeny] }).check(call(), ctx(), {
          resolvePrompts: false,
        });
        expect(a.action).toBe('deny');
      }),
      { numRuns: 60 },
    );
  });
});

describe('invariant 2: fail closed', () => {
  it('a plugin that throws ⇒ DENY with PLUGIN_ERROR naming plugin and hook', async () => {
    const thrower = plugin('thrower', (hooks) => {
      hooks.beforeToolCall.tap('x', () => {
        throw new Error('boom');
      });
    });
    const d = await createGuard({ plugins: [pathExtractor(), thrower] }).check(call(), ctx());
    expect(d.action).toBe('deny');
    expect(d.reasons[0]).toMatchObject({ code: 'PLUGIN_ERROR', plugin: 'thrower' });
    expect(d.reasons[0]?.reason).toMatch(/"thrower".*beforeToolCall.*boom/);
    expect(d.envelope?.code).toBe('PLUGIN_ERROR');
  });

  it('a plugin that rejects ⇒ DENY', async () => {
    const rejecter = plugin('rejecter', (hooks) => {
      hooks.collectAccesses.tapPromise('x', async () => {
        throw new Error('async boom');
      });
    });
    const d = await createGuard({ plugins: [rejecter] }).check(call(), ctx());
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.reason).toMatch(/"rejecter".*collectAccesses.*async boom/);
  });

  it('a plugin that hangs ⇒ DENY after the hook timeout', async () => {
    const hanger = plugin('hanger', (hooks) => {
      hooks.beforeToolCall.tapPromise('x', () => new Promise(() => {}));
    });
    const started = Date.now();
    const d = await createGuard({
      plugins: [pathExtractor(), hanger],
      timeouts: { beforeToolCall: 50 },
    }).check(call(), ctx());
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.reason).toMatch(/"hanger" timed out in hook beforeToolCall/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('an invalid verdict (wrong shape, or a promise from a sync tap) ⇒ DENY', async () => {
    const bad = plugin('bad', (hooks) => {
      hooks.beforeToolCall.tap('x', () => ({ action: 'deny' }) as never);
    });
    const d = await createGuard({ plugins: [bad] }).check(call(), ctx());
    expect(d.reasons[0]).toMatchObject({ code: 'PLUGIN_ERROR', plugin: 'bad' });
    const sneaky = plugin('sneaky', (hooks) => {
      hooks.beforeToolCall.tap('x', (() => Promise.resolve(undefined)) as never);
    });
    const d2 = await createGuard({ plugins: [sneaky] }).check(call(), ctx());
    expect(d2.reasons[0]?.reason).toMatch(/tapPromise/);
  });

  it('an uncertain access ⇒ DENY even when no policy objects, or PROMPT when the guard says so', async () => {
    // A policy that objects to nothing.
    const lenient = {
      ...plugin('lenient', (hooks) => {
        hooks.beforeToolCall.tap('x', () => undefined);
      }),
      policy: true,
    };
    const g = createGuard({ plugins: [pathExtractor(), lenient] });
    const d = await g.check(call('read_file', { path: '$SECRET_DIR/x' }), ctx());
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.code).toBe('PATH_UNCERTAIN');
    const p = await createGuard({ plugins: [pathExtractor(), lenient], uncertain: 'prompt' }).check(
      call('read_file', { path: '$SECRET_DIR/x' }),
      ctx(),
      { resolvePrompts: false },
    );
    expect(p.action).toBe('prompt');
  });

  it('an uncertain access is allowed only when every policy covers it everywhere (and one that throws covers nothing)', async () => {
    const policyThat = (name: string, covers: (() => boolean) | undefined) => ({
      ...plugin(name, (hooks) => {
        hooks.beforeToolCall.tap('x', () => undefined);
      }),
      policy: true,
      ...(covers ? { coversUncertain: covers } : {}),
    });
    const uncertain = call('read_file', { path: '$SECRET_DIR/x' });
    const allow = await createGuard({ plugins: [pathExtractor(), policyThat('open', () => true)] }).check(
      uncertain,
      ctx(),
    );
    expect(allow.action).toBe('allow');
    for (const second of [
      policyThat('silent', undefined),
      policyThat('strict', () => false),
      policyThat('broken', () => {
        throw new Error('boom');
      }),
    ]) {
      const d = await createGuard({
        plugins: [pathExtractor(), policyThat('open', () => true), second],
      }).check(uncertain, ctx());
      expect(d.action, second.name).toBe('deny');
      expect(d.reasons[0]?.code).toBe('PATH_UNCERTAIN');
    }
    // A covering plugin that is not a policy does not count, and with no policy the call is unguarded.
    const notPolicy = { ...plugin('np', () => {}), coversUncertain: () => true };
    const d = await createGuard({ plugins: [pathExtractor(), notPolicy] }).check(uncertain, ctx());
    expect(d.action).toBe('deny');
  });

  it('a prompt nobody answers ⇒ DENY; a declined prompt ⇒ DENY; an approver that throws ⇒ DENY', async () => {
    // A judging plugin is a policy (`policy: true`), or core's NO_POLICY would answer first.
    const prompter = (answer?: 'yes' | 'no' | 'throw'): GuardPlugin => ({
      policy: true,
      ...plugin('prompter', (hooks) => {
        hooks.beforeToolCall.tap('x', () => ({
          action: 'prompt',
          code: 'PATH_PROMPT',
          reason: 'needs a human',
        }));
        if (answer) {
          hooks.onPrompt.tap('x', () => {
            if (answer === 'throw') throw new Error('tty gone');
            return { approved: answer === 'yes' };
          });
        }
      }),
    });
    expect((await createGuard({ plugins: [prompter()] }).check(call(), ctx())).reasons[0]?.code).toBe(
      'PROMPT_UNANSWERED',
    );
    expect((await createGuard({ plugins: [prompter('no')] }).check(call(), ctx())).reasons[0]?.code).toBe(
      'PROMPT_DENIED',
    );
    expect((await createGuard({ plugins: [prompter('throw')] }).check(call(), ctx())).reasons[0]?.code).toBe(
      'PLUGIN_ERROR',
    );
    const yes = await createGuard({ plugins: [prompter('yes')] }).check(call(), ctx());
    expect(yes.action).toBe('allow');
    expect(yes.verdict).toBe('prompt');
    expect(yes.approval).toMatchObject({ approved: true, by: 'prompter' });
  });

  it('an approver that hangs ⇒ DENY with PROMPT_TIMEOUT', async () => {
    const p: GuardPlugin = {
      policy: true,
      ...plugin('slow-human', (hooks) => {
        hooks.beforeToolCall.tap('x', () => ({ action: 'prompt', code: 'PATH_PROMPT', reason: 'ask' }));
        hooks.onPrompt.tapPromise('x', () => new Promise(() => {}));
      }),
    };
    const d = await createGuard({ plugins: [p], timeouts: { onPrompt: 30 } }).check(call(), ctx());
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.code).toBe('PROMPT_TIMEOUT');
  });

  it('an approver still asking is told to withdraw (request.signal) once the prompt is settled', async () => {
    let signal: AbortSignal | undefined;
    const p = plugin('asker', (hooks) => {
      hooks.beforeToolCall.tap('x', () => ({ action: 'prompt', code: 'PATH_PROMPT', reason: 'ask' }));
      hooks.onPrompt.tapPromise('x', (request) => {
        signal = request.signal;
        return new Promise(() => {});
      });
    });
    const d = await createGuard({ plugins: [{ ...p, policy: true }], timeouts: { onPrompt: 30 } }).check(
      call(),
      ctx(),
    );
    expect(d.reasons[0]?.code).toBe('PROMPT_TIMEOUT');
    expect(signal?.aborted).toBe(true);
  });

  it('a call that touches paths with no policy installed ⇒ DENY by default; the user may choose otherwise', async () => {
    const d = await createGuard({ plugins: [pathExtractor()] }).check(call(), ctx());
    expect(d.reasons[0]?.code).toBe('NO_POLICY');
    const a = await createGuard({ plugins: [pathExtractor()], unguarded: 'allow' }).check(call(), ctx());
    expect(a.action).toBe('allow');
    // The bug: no plugin extracts write_file's path, so the call "touched no paths" and was allowed.
    for (const args of [
      { path: '/etc/passwd', content: 'x' },
      { ops: [{ path: '/root/.ssh/authorized_keys' }] },
      { source_filepath: 'a', destination_filepath: 'b' },
      { uri: 'file:///etc/shadow' },
      { command: 'rm -rf ~' },
    ]) {
      const bare = await createGuard({ plugins: [] }).check(call('write_file', args), ctx());
      expect(bare.action, JSON.stringify(args)).toBe('deny');
      expect(bare.reasons[0]?.code).toBe('NO_POLICY');
    }
    // Twin: a call with nothing path-like is not a file call.
    const search = await createGuard({ plugins: [] }).check(call('web_search', { query: 'a/b c' }), ctx());
    expect(search.action).toBe('allow');
  });

  it('bug: a plugin tapping beforeToolCall for another reason made an unguarded guard look guarded', async () => {
    const veto = plugin('metachar-veto', (hooks) => {
      hooks.beforeToolCall.tap({ stage: Stage.GUARD }, () => undefined);
    });
    const d = await createGuard({ plugins: [pathExtractor(), veto] }).check(
      call('read_file', { path: '/etc/passwd' }),
      ctx(),
    );
    expect(d.action).toBe('deny');
    expect(d.reasons[0]?.code).toBe('NO_POLICY');
  });

  it('a malformed call ⇒ DENY with INVALID_CALL, and a malformed context is a clear error', async () => {
    const g = createGuard({ plugins: [pathExtractor()] });
    expect((await g.check({ tool: 'x', args: null } as never, ctx())).reasons[0]?.code).toBe('INVALID_CALL');
    expect((await g.check({ args: {} } as never, ctx())).reasons[0]?.code).toBe('INVALID_CALL');
    expect((await g.check(null as never, ctx())).action).toBe('deny');
    await expect(g.check(call(), { ...ctx(), cwd: 'relative' })).rejects.toThrow(
      /cwd must be an absolute path/,
    );
  });
});

describe('invariant 3: observers cannot change or stall a decision', () => {
  it('an observer that throws, rejects or mutates changes nothing and is reported', async () => {
    const errors: unknown[] = [];
    const evil = plugin('evil', (hooks) => {
      hooks.onDecision.tap('x', (decision) => {
        (decision as { action: string }).action = 'allow';
      });
      hooks.onViolation.tap('x', () => {
        throw new Error('observer boom');
      });
      hooks.onViolation.tapPromise('y', async (v) => {
        (v.decision.reasons as unknown[]).length = 0;
      });
    });
    const g = createGuard({ plugins: [pathExtractor(), denyUnder('/etc'), evil] });
    g.events.on('observer-error', (e) => errors.push(e));
    const d = await g.check(call('read_file', { path: '/etc/passwd' }), ctx());
    expect(d.action).toBe('deny');
    expect(d.reasons).toHaveLength(1);
    expect(errors.length).toBeGreaterThanOrEqual(2);
  });

  it('observers get a frozen copy of the context: a host reusing its context cannot rewrite a record', async () => {
    const kept: Array<{ cwd: string }> = [];
    const keeper = plugin('keeper', (hooks) => {
      hooks.onViolation.tap('x', (v) => void kept.push(v.ctx));
    });
    const g = createGuard({ plugins: [pathExtractor(), denyUnder('/etc'), keeper] });
    const hostCtx = ctx({ cwd: '/ws' });
    await g.check(call('read_file', { path: '/etc/passwd' }), hostCtx);
    (hostCtx as { cwd: string }).cwd = '/elsewhere';
    expect(kept[0]?.cwd).toBe('/ws');
    expect(Object.isFrozen(kept[0])).toBe(true);
  });

  it('a hanging observer delays the decision by at most the observer bound', async () => {
    const hang = plugin('hang', (hooks) => {
      hooks.onDecision.tapPromise('x', () => new Promise(() => {}));
    });
    const g = createGuard({
      plugins: [pathExtractor(), denyUnder('/etc'), hang],
      timeouts: { observers: 40 },
    });
    const started = Date.now();
    const d = await g.check(call(), ctx());
    expect(d.action).toBe('allow');
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe('setup fails early', () => {
  it('rejects duplicate plugin names, invalid plugins and unknown or invalid options', () => {
    expect(() => createGuard({ plugins: [denyUnder('/a', 'same'), denyUnder('/b', 'same')] })).toThrow(
      /already installed/,
    );
    expect(() => createGuard({ plugins: [{ name: '', apply() {} }] })).toThrow(ToolgateError);
    expect(() => createGuard({ plugins: [{ name: 'x' } as never] })).toThrow(/apply/);
    expect(() => createGuard({ disclosure: 'some' as never })).toThrow(/disclosure/);
    expect(() => createGuard({ timeouts: { beforeToolCall: -1 } })).toThrow(/timeouts.beforeToolCall/);
    expect(() => createGuard({ plugin: [] } as never)).toThrow(/unknown option/);
    expect(() => createGuard({ sandbox: { mode: 'sometimes' } as never })).toThrow(/option sandbox/);
    expect(() => createGuard({ sandbox: { mode: 'uncertain' } as never })).toThrow(/option sandbox/);
  });

  it('is frozen after its first call: no plugin can be added and no hook tapped', async () => {
    let lateHooks: Parameters<Parameters<typeof plugin>[1]>[0] | undefined;
    const sneaky = plugin('sneaky', (hooks) => {
      lateHooks = hooks;
    });
    const g = createGuard({ plugins: [sneaky, denyUnder('/etc')] });
    await g.check(call(), ctx());
    expect(g.frozen).toBe(true);
    expect(() => g.use(denyUnder('/x', 'late'))).toThrow(
      expect.objectContaining({ code: 'TOOLGATE_ERR_FROZEN' }),
    );
    expect(() => lateHooks!.beforeToolCall.tap('x', () => undefined)).toThrow(/no longer be added/);
  });

  it('plugins get a facade without call/promise/intercept', () => {
    let seen: Record<string, unknown> = {};
    createGuard({
      plugins: [
        plugin('peek', (hooks) => {
          seen = hooks.beforeToolCall as never;
        }),
      ],
    });
    expect(Object.keys(seen).sort()).toEqual(['tap', 'tapPromise']);
  });
});

describe('invariant 5: sessions are isolated', () => {
  it("100 concurrent sessions with different state never see each other's", async () => {
    // A plugin that remembers a per-session secret on the first call and checks it on later ones.
    const leaks: string[] = [];
    const memo = plugin('memo', (hooks) => {
      hooks.beforeToolCall.tapPromise('x', async (c, state) => {
        const mine = String(c.args.secret);
        const stored = state.session.get('secret');
        if (stored === undefined) state.session.set('secret', mine);
        else if (stored !== mine) leaks.push(`${state.ctx.sessionId} saw ${String(stored)}`);
        await sleep(Math.random() * 5);
        if (state.session.get('secret') !== mine) leaks.push(`${state.ctx.sessionId} changed under it`);
        return undefined;
      });
    });
    const g = createGuard({ plugins: [memo] });
    const sessions = Array.from({ length: 100 }, (_, i) => g.session(ctx({ sessionId: `s${i}` })));
    await Promise.all(
      sessions.flatMap((s, i) =>
        Array.from({ length: 5 }, () => s.check({ tool: 'web_search', args: { secret: `secret-${i}` } })),
      ),
    );
    expect(leaks).toEqual([]);
    sessions[0]!.end();
    // after end(), the session starts clean
    await sessions[0]!.check({ tool: 'web_search', args: { secret: 'fresh' } });
    expect(leaks).toEqual([]);
  });
});
