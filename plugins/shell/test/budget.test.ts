import { describe, expect, it } from 'vitest';
import { extractAccesses } from '../src/index.js';
import { fakeContext } from './helpers.js';

// Class 5 of issue 13: pathological inputs get a decision within the budget — never a hang. Before the
// loop fixpoint, 20 nested loops took 16.7 s and 30 were killed after 60 s. Times here are asserted with
// a wide margin (the machine running the suite may be loaded); the budget itself is CPU time.

const ctx = fakeContext();
const budget = (r: ReturnType<typeof extractAccesses>) =>
  r.accesses.some((a) => !a.certain && a.reason?.startsWith('SHELL_BUDGET'));

function timed(cmd: string, options = {}) {
  const t0 = performance.now();
  const r = extractAccesses(cmd, ctx, options);
  return { r, ms: performance.now() - t0 };
}

const nestedLoops = (n: number) =>
  `${Array.from({ length: n }, (_, k) => `for i${k} in a b; do x=$i${k};`).join(' ')} cat $x;${' done;'.repeat(n)}`;

const pathological: [string, string][] = [
  ['30 nested for loops', nestedLoops(30)],
  [
    '30 nested while loops changing a variable',
    `${'while true; do y=$y.x; '.repeat(30)}cat $y;${' done;'.repeat(30)}`,
  ],
  [
    '30 nested loops each changing directory',
    `${'for d in a b; do cd $d; '.repeat(30)}cat f;${' done;'.repeat(30)}`,
  ],
  [
    'a 20,000-character script',
    Array.from({ length: 600 }, (_, k) => `if [ -f a${k} ]; then cp a${k} b${k}; fi`)
      .join('\n')
      .slice(0, 20_000),
  ],
  ['{a,b} 25 times', `echo ${'{a,b}'.repeat(25)}`],
  ['200-deep $( ) nesting', `${'$('.repeat(200)}echo x${')'.repeat(200)}`],
  ['a 1 MB command', `echo ${'a '.repeat(500_000)}`],
  ['10,000 commands joined by &&', Array.from({ length: 10_000 }, () => 'true').join(' && ')],
  ['100-deep subshells', `${'( '.repeat(100)}cat x${' )'.repeat(100)}`],
  ['a recursive function', 'f() { f; cat x; f; }; f'],
  ['mutually calling functions', 'f() { g; g; }; g() { f; f; }; f'],
  [
    '30 nested ifs in loops',
    `${'for v in a b; do if true; then x=$v; fi; '.repeat(30)}cat $x;${' done;'.repeat(30)}`,
  ],
];

describe('bounded analysis', () => {
  for (const [name, cmd] of pathological) {
    it(`${name}: a decision, fast`, () => {
      const { r, ms } = timed(cmd);
      // A decision either way; over the budget it is uncertain (so denied), never a hang.
      expect(ms).toBeLessThan(3000);
      if (budget(r)) expect(r.uncertain).toBe(true);
    });
  }

  it('over the budget the answer is one SHELL_BUDGET uncertain access', () => {
    const { r } = timed(nestedLoops(30), { budget: 1 });
    expect(budget(r)).toBe(true);
    expect(r.uncertain).toBe(true);
  });

  it('a benign script of ordinary size stays certain under the default budget', () => {
    const script = Array.from({ length: 10 }, (_, k) => `if [ -f a${k} ]; then cp a${k} b${k}; fi`).join(
      '\n',
    );
    const { r } = timed(script);
    expect(budget(r)).toBe(false);
    expect(r.uncertain).toBe(false);
  });

  it('nested loops cost grows about linearly, not 2^n', () => {
    const { r } = timed(nestedLoops(20), { budget: 60_000 });
    // 20 levels: every value of x is known (a or b), nothing uncertain, no budget needed.
    expect(r.uncertain).toBe(false);
    expect(r.accesses.map((a) => a.path).sort()).toEqual(['/ws/project/a', '/ws/project/b']);
  });
});

describe('shell({ budget })', () => {
  it('rejects a budget that is not a positive number, naming the field', async () => {
    const { shell } = await import('../src/index.js');
    expect(() => shell({ budget: 0 })).toThrow(/options\.budget/);
    expect(() => shell({ budget: 'fast' as unknown as number })).toThrow(/options\.budget/);
    expect(() => shell({ budget: 20 })).not.toThrow();
  });

  it('a guard over its budget denies with SHELL_BUDGET in the reason', async () => {
    const { createGuard } = await import('@toolgate/core');
    const { shell } = await import('../src/index.js');
    const guard = createGuard({ plugins: [shell({ budget: 1 })] });
    const d = await guard.check(
      { tool: 'shell_exec', args: { command: nestedLoops(30) } },
      { ...ctx, cwd: '/ws/project' },
      { resolvePrompts: false },
    );
    expect(d.action).toBe('deny');
    expect(JSON.stringify(d.reasons)).toContain('SHELL_BUDGET');
  });
});
