import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createRedactor } from '../src/redact.js';

interface Case {
  case: string;
  args: unknown;
  keys?: string[];
  absent: string[];
  present: string[];
}
const cases = readFileSync(new URL('./fixtures/redaction.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Case);

describe('redaction (fixtures/redaction.jsonl: one case per line)', () => {
  for (const c of cases) {
    it(c.case, () => {
      const out = JSON.stringify(createRedactor({ keys: c.keys ?? [] })(c.args));
      for (const s of c.absent) expect(out).not.toContain(s);
      for (const s of c.present) expect(out).toContain(s);
    });
  }

  it('never mutates the arguments, and survives cycles, depth and huge arrays', () => {
    const args: Record<string, unknown> = { content: 'x', list: Array.from({ length: 100 }, (_, i) => i) };
    args.self = args;
    let deep: Record<string, unknown> = { leaf: 'bottom' };
    for (let i = 0; i < 20; i++) deep = { deep };
    args.deep = deep;
    const out = createRedactor()(args) as Record<string, unknown>;
    expect(args.content).toBe('x');
    expect(out.self).toBe('[Circular]');
    expect(JSON.stringify(out.deep)).toContain('[Depth]');
    expect((out.list as unknown[]).at(-1)).toBe('…[68 more items]');
  });

  it('the same secret always gets the same hash (records can be correlated without the secret)', () => {
    const r = createRedactor();
    expect(JSON.stringify(r({ token: 'abc' }))).toBe(JSON.stringify(r({ token: 'abc' })));
    expect(JSON.stringify(r({ token: 'abc' }))).not.toBe(JSON.stringify(r({ token: 'abd' })));
  });
});
