import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Access, CallContext, Op } from '@toolgate/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvaluator, loadPolicy } from '../src/index.js';
import { tighter } from '../src/levels.js';
import type { Outcome } from '../src/types.js';

// The walk is exact: on a real tree, for random policies, roots, operations and modes, the pruned walk's
// decision equals the brute-force fold of every existing entry's own decision (the root's, then each entry
// beneath as the access's operation; a list judges directories only; links as links). Pruning must never
// skip an entry that would decide, and the walk must never deny what no existing entry is denied for.
let R: string;
let ctx: CallContext;
let dirs: string[];

const FILES = [
  'ws/src/a.ts',
  'ws/src/lib/b.ts',
  'ws/.env',
  'ws/Secrets/x.txt',
  'ws/b/.ssh/x.txt',
  'ws/log',
  'home/u/.ssh/x.txt',
  'home/u/src/x.txt',
  'etc/log/x.txt',
  'etc/a',
];

beforeAll(() => {
  R = realpathSync(mkdtempSync(join(tmpdir(), 'tg-fr-walkprop-')));
  for (const f of FILES) {
    mkdirSync(dirname(join(R, f)), { recursive: true });
    writeFileSync(join(R, f), '');
  }
  symlinkSync(join(R, 'home/u/.ssh'), join(R, 'ws/keys'));
  ctx = {
    sessionId: 's',
    agentId: 'a',
    cwd: join(R, 'ws'),
    workspace: join(R, 'ws'),
    home: join(R, 'home/u'),
    env: {},
  };
  dirs = [R];
  for (let i = 0; i < dirs.length; i++)
    for (const e of readdirSync(dirs[i] as string, { withFileTypes: true }))
      if (e.isDirectory()) dirs.push(join(dirs[i] as string, e.name));
});
afterAll(() => rmSync(R, { recursive: true, force: true }));

const segs = [
  'ws',
  'etc',
  'home',
  'u',
  '.ssh',
  'src',
  'lib',
  'b',
  'Secrets',
  'secrets',
  'log',
  'x.txt',
  '.env',
  'a',
];
const seg = fc.constantFrom(...segs);
// Anchored patterns under the tree (rebased on R when the policy is built) and anywhere-patterns.
const pattern = fc.oneof(
  fc
    .tuple(fc.array(seg, { minLength: 1, maxLength: 3 }), fc.constantFrom('/**', '/*', ''))
    .map(([p, tail]) => ({ anchored: true, text: `${p.join('/')}${tail}` })),
  fc.tuple(seg, fc.constantFrom('', '/**')).map(([s, tail]) => ({ anchored: false, text: `**/${s}${tail}` })),
);
const rules = fc.array(fc.record({ pattern, access: fc.constantFrom('deny', 'prompt', 'read', 'write') }), {
  maxLength: 6,
});

function entry(path: string, op: Op, onLink: boolean): Access {
  return {
    op,
    scope: 'path',
    raw: path,
    path,
    realPath: path,
    origin: 'folder-rules:prop',
    certain: true,
    ...(onLink ? { onLink } : {}),
  };
}

describe('subtree walk (fast-check, real tree)', () => {
  it('equals the brute-force fold of every existing entry beneath (links not followed)', () => {
    fc.assert(
      fc.property(
        rules,
        fc.nat(),
        fc.constantFrom<Op>('read', 'write', 'list'),
        fc.constantFrom('tiered', 'first-match'),
        fc.constantFrom('deny', 'prompt', 'allow'),
        (rs, pick, op, mode, def) => {
          const policy = loadPolicy({
            dialect: 'toolgate',
            source: JSON.stringify({
              mode,
              default: def,
              rules: rs.map((r) => ({
                pattern: r.pattern.anchored ? `${R}/${r.pattern.text}` : r.pattern.text,
                access: r.access,
              })),
            }),
            file: 'prop.json',
          });
          const ev = createEvaluator(policy, ctx);
          const root = dirs[pick % dirs.length] as string;
          const walked = ev.evaluate({ ...entry(root, op, false), scope: 'subtree' }).decision;
          let expected: Outcome = ev.evaluate(entry(root, op, false)).decision;
          const stack = [root];
          while (stack.length > 0) {
            const d = stack.pop() as string;
            for (const name of readdirSync(d)) {
              const p = join(d, name);
              const st = lstatSync(p);
              if (op !== 'list' || st.isDirectory())
                expected = tighter(ev.evaluate(entry(p, op, st.isSymbolicLink())).decision, expected);
              if (st.isDirectory()) stack.push(p);
            }
          }
          expect(walked).toBe(expected);
        },
      ),
      { numRuns: 400 },
    );
  });
});
