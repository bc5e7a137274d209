import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The shell package is a pipeline: lex → parse → state → programs → effects → the plugin. A file may import
// (at run time) only from its own stage or an earlier one, so the folders read in the order the data flows
// and no import circle can form between stages. `import type` is free: types do not run.
const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../src');
const ORDER = ['lex', 'parse', 'state', 'programs', 'effects', '.'];

function stageOf(file: string): number {
  const top = relative(SRC, file).split('/')[0] ?? '.';
  const k = ORDER.indexOf(top);
  return k === -1 ? ORDER.length - 1 : k;
}

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sources(p));
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** Run-time relative imports of a file: `import … from './x.js'` and `export … from`, not `import type`. */
function runtimeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  const re = /^(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?'(\.{1,2}\/[^']+)'/gm;
  for (const m of text.matchAll(re)) out.push(resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts')));
  return out;
}

describe('shell package layers', () => {
  const files = sources(SRC);

  it('has files in every stage folder', () => {
    for (const stage of ORDER.slice(0, -1))
      expect(files.some((f) => stageOf(f) === ORDER.indexOf(stage))).toBe(true);
  });

  it('imports only from its own stage or an earlier one (lex → parse → state → programs → effects → plugin)', () => {
    const wrong: string[] = [];
    for (const f of files) {
      for (const target of runtimeImports(f)) {
        if (stageOf(target) > stageOf(f)) wrong.push(`${relative(SRC, f)} imports ${relative(SRC, target)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('has no run-time import cycle', () => {
    const graph = new Map(files.map((f) => [f, runtimeImports(f)]));
    const state = new Map<string, 1 | 2>();
    const cycles: string[] = [];
    const visit = (f: string, path: string[]) => {
      if (state.get(f) === 2) return;
      if (state.get(f) === 1) {
        cycles.push([...path.slice(path.indexOf(f)), f].map((p) => relative(SRC, p)).join(' → '));
        return;
      }
      state.set(f, 1);
      for (const t of graph.get(f) ?? []) visit(t, [...path, f]);
      state.set(f, 2);
    };
    for (const f of files) visit(f, []);
    expect(cycles).toEqual([]);
  });
});
