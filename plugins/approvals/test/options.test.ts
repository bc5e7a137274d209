import { describe, expect, it } from 'vitest';
import { approvals, autoAllow, autoDeny, firstOf, queue, tty } from '../src/index.js';

describe('options are validated at construction, naming field and value', () => {
  const strategy = autoAllow();
  it.each([
    [{}, /approvals: strategy must be/],
    [{ strategy, timeoutMs: 0 }, /approvals: timeoutMs must be a positive number of milliseconds, got 0/],
    [{ strategy, timeoutMs: '5s' }, /timeoutMs .*got "5s"/],
    [
      { strategy, maxConfirmationsPerSession: 1.5 },
      /maxConfirmationsPerSession must be a positive integer, got 1.5/,
    ],
    [{ strategy, grants: { ttlMs: -1 } }, /grants.ttlMs must be/],
    [{ strategy, grants: { forever: true } }, /grants.forever must be one of ttlMs, maxUses/],
    [{ strategy, dir: '' }, /dir must be a directory path/],
    [{ strategy, suggestAfter: 0 }, /suggestAfter must be a positive integer/],
    [{ strategy, wildMode: 'yes' }, /wildMode must be a boolean/],
    [{ strategy, strategey: 1 }, /strategey must be one of/],
  ])('%j', (options, message) => {
    expect(() => approvals(options as never)).toThrow(message);
    try {
      approvals(options as never);
    } catch (error) {
      expect((error as { code: string }).code).toBe('TOOLGATE_ERR_INVALID_OPTIONS');
    }
  });

  it('strategy factories validate too', () => {
    expect(() => autoAllow({ grant: 'all' as never })).toThrow(/autoAllow: grant must be/);
    expect(() => autoDeny({ reason: '' })).toThrow(/autoDeny: reason must be a non-empty string/);
    expect(() => queue({ name: '' })).toThrow(/queue: name must be/);
    expect(() => firstOf([])).toThrow(/firstOf: strategies must be/);
    expect(() => firstOf([{} as never])).toThrow(/firstOf: strategies\[0\]/);
    expect(() => tty({ input: {} as never })).toThrow(/tty: input must be a readable stream/);
  });
});
