import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileNetworkPolicy, normaliseHost } from '../src/index.js';

// The matcher takes a shortcut for hosts already in the WHATWG parser's form. Property: whatever the
// spelling, a host is decided exactly as its normalised form is — the shortcut never changes a verdict.
const policy = compileNetworkPolicy(
  {
    default: 'prompt',
    rules: [
      { host: 'localhost', action: 'deny' },
      { host: '*.ok.test', action: 'allow' },
      { host: 'ok.test', action: 'allow', method: 'read' },
      { host: '10.0.0.0/8', action: 'allow' },
      { host: '1.2.3.4', action: 'deny' },
      { host: 'xn--pple-43d.test', action: 'deny' },
    ],
  },
  '/p.yaml',
);

const label = fc.oneof(
  fc.constantFrom(
    'ok',
    'OK',
    'test',
    'localhost',
    'xn--pple-43d',
    'apple',
    '0x7f',
    '127',
    '0',
    '1',
    '10',
    '08',
    '0x',
  ),
  fc.stringMatching(/^[a-zA-Z0-9_-]{1,6}$/),
  fc.integer({ min: 0, max: 2 ** 32 - 1 }).map(String),
);
const host = fc
  .tuple(fc.array(label, { minLength: 1, maxLength: 5 }), fc.boolean())
  .map(([labels, dot]) => `${labels.join('.')}${dot ? '.' : ''}`);

describe('network matcher: a host is decided as its normalised form', () => {
  it('for names, numeric forms, punycode and trailing dots', () => {
    fc.assert(
      fc.property(host, fc.constantFrom('read' as const, 'write' as const), (h, method) => {
        const norm = normaliseHost(h);
        const given = policy.decide({ host: h, method });
        if (norm === null) expect(given.action).toBe('deny');
        else expect(given).toEqual(policy.decide({ host: norm, method }));
      }),
      { numRuns: 3000 },
    );
  });
});
