import { type CallContext, createGuard, MAX_ALLOWED_PATHS, ToolgateError } from '@toolgate/core';
import { describe, expect, it } from 'vitest';
import { braceExpansions } from '../src/globCost.js';
import { evaluatorFor, folderRules, loadPolicy } from '../src/index.js';

const ctx = (ws = '/ws'): CallContext => ({
  sessionId: 's',
  agentId: 'a',
  cwd: ws,
  workspace: ws,
  home: '/home/u',
  env: {},
});

function manyRoots(n: number): string {
  const lines = ['default: deny', 'rules:'];
  for (let i = 0; i < n; i++) lines.push(`  - { pattern: "/srv/p${i}/**", access: write }`);
  return lines.join('\n');
}

describe('issue 14: the envelope of a deny is bounded, whatever the policy size', () => {
  it('500 allowed roots: the envelope lists 20 and counts the rest', async () => {
    const guard = createGuard({
      plugins: [folderRules({ policy: loadPolicy({ dialect: 'toolgate', source: manyRoots(500) }) })],
    });
    const d = await guard.check({ tool: 'write_file', args: { path: '/etc/passwd' } }, ctx());
    expect(d.action).toBe('deny');
    expect(d.envelope?.allowed_paths).toHaveLength(MAX_ALLOWED_PATHS);
    expect(d.envelope?.allowed_paths?.[0]).toBe('/srv/p0');
    expect(d.envelope?.allowed_paths_omitted).toBe(500 - MAX_ALLOWED_PATHS);
    expect(JSON.stringify(d.envelope).length).toBeLessThan(2_000);
    // The second deny reuses the list computed for the first (same frozen array).
    const again = await guard.check({ tool: 'write_file', args: { path: '/etc/shadow' } }, ctx());
    expect(again.reasons[0]?.allowedPaths).toBe(d.reasons[0]?.allowedPaths);
  });

  it('a small policy lists every root and no count', async () => {
    const guard = createGuard({
      plugins: [folderRules({ policy: loadPolicy({ dialect: 'toolgate', source: manyRoots(3) }) })],
    });
    const d = await guard.check({ tool: 'write_file', args: { path: '/etc/passwd' } }, ctx());
    expect(d.envelope?.allowed_paths).toEqual(['/srv/p0', '/srv/p1', '/srv/p2']);
    expect(d.envelope).not.toHaveProperty('allowed_paths_omitted');
  });

  it('redacted disclosure shows neither the roots nor their count', async () => {
    const guard = createGuard({
      disclosure: 'redacted',
      plugins: [folderRules({ policy: loadPolicy({ dialect: 'toolgate', source: manyRoots(50) }) })],
    });
    const d = await guard.check({ tool: 'write_file', args: { path: '/etc/passwd' } }, ctx());
    expect(d.envelope).not.toHaveProperty('allowed_paths');
    expect(d.envelope).not.toHaveProperty('allowed_paths_omitted');
  });
});

describe('issue 14: compiled policies per workspace are kept in a bounded LRU, never wiped', () => {
  it('the least recently used context is the one recompiled; a busy one never is', () => {
    const policy = loadPolicy({
      dialect: 'toolgate',
      source: 'rules:\n  - { pattern: "<workspace>/**", access: write }',
    });
    const busy = evaluatorFor(policy, ctx('/busy'), 4);
    for (let i = 0; i < 100; i++) {
      evaluatorFor(policy, ctx(`/ws${i}`), 4);
      expect(evaluatorFor(policy, ctx('/busy'), 4)).toBe(busy);
    }
    // Of the 100 others only the last three are still compiled.
    const last = evaluatorFor(policy, ctx('/ws99'), 4);
    expect(evaluatorFor(policy, ctx('/ws99'), 4)).toBe(last);
    const old = evaluatorFor(policy, ctx('/ws0'), 4);
    expect(evaluatorFor(policy, ctx('/ws0'), 4)).toBe(old);
  });

  it('100 workspaces round robin on one guard never recompile with the default size', async () => {
    const policy = loadPolicy({
      dialect: 'toolgate',
      source: 'rules:\n  - { pattern: "<workspace>/**", access: write }',
    });
    const guard = createGuard({ plugins: [folderRules({ policy })] });
    const first = new Map<string, unknown>();
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 100; i++) {
        const c = ctx(`/rr${i}`);
        const d = await guard.check({ tool: 'write_file', args: { path: `/rr${i}/a.ts` } }, c);
        expect(d.action).toBe('allow');
        const ev = evaluatorFor(policy, c);
        if (round === 0) first.set(c.workspace, ev);
        else expect(ev).toBe(first.get(c.workspace));
      }
    }
  });

  it('maxWorkspaces is validated', () => {
    const rules = [{ pattern: '/x/**', access: 'write' as const }];
    for (const bad of [0, -1, 1.5, Number.NaN, '3'])
      expect(() => folderRules({ rules, maxWorkspaces: bad as number })).toThrow(/maxWorkspaces/);
    expect(() => folderRules({ rules, maxWorkspaces: 1 })).not.toThrow();
  });
});

describe('issue 14: globs whose expansion is unbounded are rejected at load, naming the rule', () => {
  it('a brace bomb ({a,b} x30) fails the load with file, rule and count', () => {
    const source = `rules:\n  - { pattern: "/ok/**", access: write }\n  - { pattern: "/x/${'{a,b}'.repeat(30)}", access: deny }`;
    let error: unknown;
    try {
      loadPolicy({ dialect: 'toolgate', source, file: 'bomb.yaml' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ToolgateError);
    expect((error as ToolgateError).code).toBe('TOOLGATE_ERR_INVALID_CONFIG');
    expect((error as Error).message).toMatch(/bomb\.yaml#rules\[1\].*expands to 1073741824 patterns/);
  });

  it('inline rules and every dialect are checked too', () => {
    expect(() =>
      folderRules({ rules: [{ pattern: `/x/${'{a,b,c,d}'.repeat(5)}`, access: 'deny' }] }),
    ).toThrow(/inline#rules\[0\].*expands to 1024 patterns/);
    expect(() =>
      loadPolicy({
        dialect: 'folderguard',
        source: JSON.stringify({ writePaths: [`/w/${'{1..100}'.repeat(2)}`] }),
        file: 'fg.json',
      }),
    ).toThrow(/expands to 10000 patterns/);
    expect(() => folderRules({ rules: [{ pattern: `/${'a'.repeat(5000)}`, access: 'deny' }] })).toThrow(
      /5001 characters long/,
    );
    expect(() =>
      folderRules({ rules: [{ pattern: `/x/${'{a,'.repeat(40)}b${'}'.repeat(40)}`, access: 'deny' }] }),
    ).toThrow(/nests groups/);
  });

  it('ordinary braces, ranges, literal and unclosed braces are accepted and still match', async () => {
    const guard = createGuard({
      plugins: [
        folderRules({
          rules: [
            { pattern: '/ws/{src,test}/**/*.{ts,tsx}', access: 'write' },
            { pattern: '/ws/log{1..9}.txt', access: 'read' },
            { pattern: '/ws/{literal}/**', access: 'write' },
          ],
        }),
      ],
    });
    const check = async (path: string, tool = 'write_file') =>
      (await guard.check({ tool, args: { path } }, ctx())).action;
    expect(await check('/ws/src/a/b.tsx')).toBe('allow');
    expect(await check('/ws/log7.txt', 'read_file')).toBe('allow');
    expect(await check('/ws/lib/a.ts')).toBe('deny');
    expect(braceExpansions('/a/{b,c}/{d,e,f}').count).toBe(6);
    expect(braceExpansions('/a/{b,{c,d}}').count).toBe(3);
    expect(braceExpansions('/a/{b').count).toBe(1);
    expect(braceExpansions('/a/\\{b,c}').count).toBe(1);
    expect(braceExpansions('/a/{a..z}').count).toBe(26);
    expect(braceExpansions('/a/{0..100..10}').count).toBe(11);
  });
});
