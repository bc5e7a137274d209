import { type CallContext, createAccess } from '@toolgate/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEvaluator, loadPolicy } from '../src/index.js';
import { tighter } from '../src/levels.js';
import type { CompiledPolicy } from '../src/types.js';

const ctx: CallContext = {
  sessionId: 's',
  agentId: 'a',
  cwd: '/ws',
  workspace: '/ws',
  home: '/home/u',
  env: {},
};
const segs = ['ws', 'etc', 'home', 'u', '.ssh', 'src', 'a', 'b', 'Secrets', 'log', 'x.txt'];
const seg = fc.constantFrom(...segs);
const path = fc.array(seg, { minLength: 1, maxLength: 5 }).map((p) => `/${p.join('/')}`);
const pattern = fc
  .tuple(fc.array(seg, { minLength: 1, maxLength: 3 }), fc.constantFrom('/**', '/*', ''))
  .map(([p, tail]) => `/${p.join('/')}${tail}`);
const access = fc.constantFrom('deny', 'prompt', 'read', 'write');
const rules = fc.array(fc.record({ pattern, access }), { maxLength: 8 });

function policyOf(
  rs: { pattern: string; access: string }[],
  mode: 'tiered' | 'first-match',
  def = 'deny',
): CompiledPolicy {
  return loadPolicy({
    dialect: 'toolgate',
    source: JSON.stringify({ mode, default: def, rules: rs }),
    file: 'prop.json',
  });
}
const decide = (p: CompiledPolicy, raw: string, op: 'read' | 'write') =>
  createEvaluator(p, ctx).evaluate(createAccess(raw, op, ctx, { origin: 'folder-rules:args.path' })).decision;

describe('properties (fast-check)', () => {
  it('adding a deny rule never turns a deny into an allow (both modes)', () => {
    fc.assert(
      fc.property(
        rules,
        pattern,
        path,
        fc.constantFrom('read', 'write'),
        fc.constantFrom('tiered', 'first-match'),
        fc.nat(8),
        (rs, extra, p, op, mode, at) => {
          const before = decide(policyOf(rs, mode as 'tiered'), p, op as 'read');
          const withDeny = [...rs];
          withDeny.splice(Math.min(at, rs.length), 0, { pattern: extra, access: 'deny' });
          const after = decide(policyOf(withDeny, mode as 'tiered'), p, op as 'read');
          // In tiered mode a deny only ever tightens; in first-match a deny inserted anywhere also never allows more.
          expect(tighter(after, before)).toBe(after);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('tiered: write allowed implies read allowed', () => {
    fc.assert(
      fc.property(rules, path, fc.constantFrom('deny', 'prompt', 'read', 'write'), (rs, p, def) => {
        const policy = policyOf(rs, 'tiered', def);
        if (decide(policy, p, 'write') === 'allow') expect(decide(policy, p, 'read')).toBe('allow');
      }),
      { numRuns: 400 },
    );
  });

  it('the decision is invariant under equivalent spellings of a path', () => {
    fc.assert(
      fc.property(
        rules,
        fc.array(seg, { minLength: 1, maxLength: 5 }),
        fc.constantFrom('read', 'write'),
        (rs, parts, op) => {
          const policy = policyOf(rs, 'tiered');
          const plain = `/${parts.join('/')}`;
          const spellings = [
            `/${parts.join('//')}`,
            `/${parts.join('/./')}`,
            `/${parts.join('/')}/`,
            `/${parts[0]}/../${parts.join('/')}`,
            `//${parts.join('/')}`,
          ];
          const expected = decide(policy, plain, op as 'read');
          for (const s of spellings) expect(decide(policy, s, op as 'read')).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a subtree access judged without walking (worst case) is at least as restrictive as any path beneath it (index finds every rule)', () => {
    fc.assert(
      fc.property(
        rules,
        fc.array(seg, { minLength: 1, maxLength: 3 }),
        fc.array(seg, { minLength: 0, maxLength: 3 }),
        fc.constantFrom('read', 'write'),
        fc.constantFrom('tiered', 'first-match'),
        (rs, rootParts, below, op, mode) => {
          const policy = policyOf(rs, mode as 'tiered');
          const ev = createEvaluator(policy, ctx);
          const root = `/${rootParts.join('/')}`;
          const tree = ev.evaluate(
            createAccess(root, op as 'read', ctx, { origin: 'folder-rules:t', scope: 'subtree' }),
            { walk: false },
          ).decision;
          const leaf = decide(policy, [root, ...below].join('/'), op as 'read');
          expect(tighter(tree, leaf)).toBe(tree);
        },
      ),
      { numRuns: 500 },
    );
  });
});
