import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { isWithin } from '@toolgate/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { grantCovers, grantsFromAnswer } from '../src/grants.js';
import type { ApprovalItem, Grant } from '../src/types.js';

const item = (op: string, scope: string, realPath: string): ApprovalItem => ({
  op: op as ApprovalItem['op'],
  scope: scope as ApprovalItem['scope'],
  raw: realPath,
  realPath,
  code: 'PATH_PROMPT',
  reason: 'test',
});

const cases = readFileSync(new URL('./fixtures/grant-coverage.txt', import.meta.url), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'))
  .map((line) => {
    const [g, a, want] = line.split('|').map((p) => p.trim().split(/\s+/));
    return { line, grant: g!, access: a!, want: want![0] };
  });

describe('grant coverage (fixtures/grant-coverage.txt)', () => {
  it.each(cases)('$line', ({ grant, access, want }) => {
    const g: Grant = {
      op: grant[0] as Grant['op'],
      scope: grant[1] as Grant['scope'],
      path: grant[2]!,
      createdAt: 0,
      by: 't',
    };
    expect(grantCovers(g, item(access[0]!, access[1]!, access[2]!))).toBe(want === 'yes');
  });
});

const segment = fc.constantFrom('a', 'b', 'ab', 'a-b', '.x', 'secrets', 'secrets-old');
const absPath = fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => `/${s.join('/')}`);
const op = fc.constantFrom<'read' | 'write'>('read', 'write');
const scope = fc.constantFrom<'path' | 'subtree'>('path', 'subtree');

describe('grants never widen (property)', () => {
  it('whatever an approval grants covers only the same operation within what the human was shown', () => {
    fc.assert(
      fc.property(
        op,
        scope,
        absPath,
        fc.constantFrom('directory', 'subtree'),
        op,
        scope,
        absPath,
        (o, s, p, kind, o2, s2, p2) => {
          const asked = item(o, s, p);
          const grants = grantsFromAnswer(
            { approved: true, grant: kind as 'directory' | 'subtree' },
            [asked],
            {},
            0,
            't',
          );
          const reach = s === 'subtree' ? p : dirname(p);
          for (const g of grants) {
            if (!grantCovers(g, item(o2, s2, p2))) continue;
            expect(o2).toBe(o);
            expect(isWithin(p2, reach)).toBe(true);
            if (kind === 'directory' && s === 'path') {
              expect(s2).toBe('path');
              expect(dirname(p2)).toBe(reach);
            }
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('a denied or once answer grants nothing', () => {
    fc.assert(
      fc.property(op, scope, absPath, (o, s, p) => {
        expect(grantsFromAnswer({ approved: false, grant: 'subtree' }, [item(o, s, p)], {}, 0, 't')).toEqual(
          [],
        );
        expect(grantsFromAnswer({ approved: true, grant: 'once' }, [item(o, s, p)], {}, 0, 't')).toEqual([]);
      }),
    );
  });
});
