import { describe, expect, it } from 'vitest';
import { lint, loadPolicy } from '../src/index.js';

const native = (o: object) => loadPolicy({ dialect: 'toolgate', source: JSON.stringify(o), file: 'p.json' });
const codes = async (o: object) => {
  const r = await lint(native(o));
  return { errors: r.errors.map((e) => e.code), warnings: r.warnings.map((w) => w.code), r };
};

describe('lint', () => {
  it('first-match: a deny after a broader allow can never win (error), a shadowed allow is a warning', async () => {
    const { errors, warnings, r } = await codes({
      mode: 'first-match',
      rules: [
        { pattern: '/home/u/**', access: 'read' },
        { pattern: '/home/u/.ssh/**', access: 'deny' },
        { pattern: '/home/u/workspace/**', access: 'write' },
      ],
    });
    expect(errors).toEqual(['deny-never-wins']);
    expect(warnings).toContain('shadowed');
    expect(r.errors[0]?.source).toBe('toolgate:p.json#rules[1]');
    expect(r.valid).toBe(false);
  });

  it('real subsumption, not string prefixes: /home/user2 is not shadowed by /home/user/**', async () => {
    const { errors, warnings } = await codes({
      mode: 'first-match',
      rules: [
        { pattern: '/home/user/**', access: 'read' },
        { pattern: '/home/user2/**', access: 'deny' },
      ],
    });
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('a single-star rule subsumes literal children only', async () => {
    const a = await codes({
      mode: 'first-match',
      rules: [
        { pattern: '/d/*', access: 'read' },
        { pattern: '/d/x', access: 'deny' },
      ],
    });
    expect(a.errors).toEqual(['deny-never-wins']);
    const b = await codes({
      mode: 'first-match',
      rules: [
        { pattern: '/d/*', access: 'read' },
        { pattern: '/d/x/y', access: 'deny' },
      ],
    });
    expect(b.errors).toEqual([]);
  });

  it('blocks are never shadowed: they apply wherever they stand', async () => {
    const { errors } = await codes({
      mode: 'first-match',
      rules: [
        { pattern: '/d/**', access: 'write' },
        { pattern: '!/d/keys/*', access: 'deny' },
      ],
    });
    expect(errors).toEqual([]);
  });

  it('tiered: an allow inside a deny never allows; duplicates are redundant', async () => {
    const { warnings } = await codes({
      rules: [
        { pattern: '/etc/**', access: 'deny' },
        { pattern: '/etc/app/**', access: 'read' },
        { pattern: '/etc/app/**', access: 'read' },
      ],
    });
    expect(warnings).toEqual(expect.arrayContaining(['allow-inside-deny', 'redundant']));
  });

  it('relative patterns warn; Windows separators and ".." are errors', async () => {
    const { errors, warnings } = await codes({
      rules: [
        { pattern: 'src/**', access: 'write' },
        { pattern: 'C:\\Users\\**', access: 'deny' },
        { pattern: '/a/../b', access: 'deny' },
      ],
    });
    expect(warnings).toContain('relative-pattern');
    expect(errors).toEqual(['never-matches', 'never-matches']);
  });

  it('"!" rules whose flags say allow (Wunderland) warn', async () => {
    const p = loadPolicy({
      dialect: 'wunderland',
      source: JSON.stringify({ rules: [{ pattern: '!/x/*', read: true, write: true }] }),
      file: 'w.json',
    });
    expect((await lint(p)).warnings.map((w) => w.code)).toContain('block-says-allow');
  });

  it('invalid globs are errors', async () => {
    const { errors } = await codes({
      rules: [
        { pattern: '/x/[', access: 'deny' },
        { pattern: '/y/{a,b/**', access: 'deny' },
      ],
    });
    expect(errors).toEqual(['invalid-glob', 'invalid-glob']);
  });

  it("runs the policy's own tests: a policy ships with its proof", async () => {
    const ok = await lint(
      native({
        rules: [{ pattern: '/tmp/**', access: 'write' }],
        tests: [
          { path: '/tmp/a', op: 'write', expect: 'allow' },
          { call: { tool: 'read_file', args: { path: '/etc/hosts' } }, expect: 'deny' },
        ],
      }),
    );
    expect(ok.tests).toEqual({ passed: 2, failed: 0 });
    expect(ok.valid).toBe(true);
    const bad = await lint(native({ rules: [], tests: [{ path: '/tmp/a', op: 'write', expect: 'allow' }] }));
    expect(bad.tests).toEqual({ passed: 0, failed: 1 });
    expect(bad.errors[0]?.code).toBe('test-failed');
    expect(bad.errors[0]?.source).toBe('toolgate:p.json#tests[0]');
  });
});
