import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isWithin, resolvePath } from '@toolgate/core';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'tg-prop-')));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const DIRS = ['a', 'a/b', 'a/b/c', 'd', 'd/e'];
const FILES = ['a/f', 'd/e/g'];
const NAMES = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'l0', 'l1', 'l2', 'l3', '..', '.', 'zz'];
const TARGETS = ['..', '../..', 'b', 'c', '../d', 'zz', 'l0', 'l1', '../../..', '/etc', '.', 'f', 'e/g'];

const linkArb = fc.record({
  dir: fc.constantFrom('', ...DIRS),
  name: fc.constantFrom('l0', 'l1', 'l2', 'l3'),
  target: fc.oneof(
    fc.constantFrom(...TARGETS),
    fc.constantFrom(...DIRS, ...FILES).map((p) => `ROOT/${p}`),
  ),
});
const treeArb = fc.uniqueArray(linkArb, { maxLength: 6, selector: (l) => `${l.dir}/${l.name}` });
const pathArb = fc
  .array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 7 })
  .map((parts) => parts.join('/'));

let counter = 0;
function buildTree(
  links: fc.Arbitrary<unknown> extends never ? never : Array<{ dir: string; name: string; target: string }>,
): string {
  const root = join(base, `t${counter++}`);
  for (const d of DIRS) mkdirSync(join(root, d), { recursive: true });
  for (const f of FILES) writeFileSync(join(root, f), 'x');
  for (const l of links) symlinkSync(l.target.replace('ROOT', root), join(root, l.dir, l.name));
  return root;
}

function kernel(full: string): { real?: string; code?: string } {
  try {
    return { real: realpathSync.native(full) };
  } catch (error) {
    return { code: (error as NodeJS.ErrnoException).code ?? 'ERR' };
  }
}

describe('resolvePath properties over random trees of directories and symlinks', () => {
  it('agrees with realpath(3) for every existing path, and never claims a missing one exists', () => {
    fc.assert(
      fc.property(treeArb, fc.array(pathArb, { minLength: 1, maxLength: 12 }), (links, paths) => {
        const root = buildTree(links);
        const ctx = { cwd: root, workspace: root, home: root, env: {} };
        // One call resolving many paths shares its set of known-real directories: same answers as fresh.
        const realDirs = new Set<string>();
        for (const p of paths) {
          const ours = resolvePath(p, ctx);
          const shared = resolvePath(p, ctx, { realDirs });
          expect({ real: shared.real, exists: shared.exists, certain: shared.certain }).toEqual({
            real: ours.real,
            exists: ours.exists,
            certain: ours.certain,
          });
          const k = kernel(`${root}/${p}`);
          if (k.real !== undefined) {
            expect(ours.certain).toBe(true);
            expect(ours.real).toBe(k.real);
            expect(ours.exists).toBe(true);
          } else if (k.code === 'ELOOP') {
            expect(ours.certain).toBe(false);
          } else {
            expect(ours.exists).toBe(false);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('the expectExisting hint (a read asks realpath(3) first) never changes an answer', () => {
    fc.assert(
      fc.property(treeArb, fc.array(pathArb, { minLength: 1, maxLength: 12 }), (links, paths) => {
        const root = buildTree(links);
        const ctx = { cwd: root, workspace: root, home: root, env: {} };
        for (const p of [...paths, ...paths.map((q) => `${q}/`), `${root}/${paths[0]}`]) {
          const plain = resolvePath(p, ctx);
          const hinted = resolvePath(p, ctx, { expectExisting: true });
          expect(hinted).toEqual(plain);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('is idempotent: resolving a resolved path gives the same path', () => {
    fc.assert(
      fc.property(treeArb, pathArb, (links, p) => {
        const root = buildTree(links);
        const ctx = { cwd: root, workspace: root, home: root, env: {} };
        const once = resolvePath(p, ctx);
        if (!once.certain) return; // not fc.pre: loops are common in these trees and would exhaust its budget
        const twice = resolvePath(once.real!, ctx);
        expect(twice.real).toBe(once.real);
      }),
      { numRuns: 150 },
    );
  });

  it('reports a root-joined path with .. segments within the root only when it really is', () => {
    fc.assert(
      fc.property(treeArb, fc.array(pathArb, { minLength: 1, maxLength: 12 }), (links, paths) => {
        const root = buildTree(links);
        const ws = join(root, 'a');
        const ctx = { cwd: ws, workspace: ws, home: root, env: {} };
        for (const p of paths) {
          const k = kernel(`${ws}/${p}`);
          if (k.real === undefined) continue;
          expect(isWithin(resolvePath(p, ctx).real!, ws)).toBe(isWithin(k.real, ws));
        }
      }),
      { numRuns: 150 },
    );
  });
});
