import { isMap, LineCounter, parseDocument } from 'yaml';
import type { ConfigFormat } from './parseConfig.js';

export interface Position {
  line: number;
  col: number;
}

/** `rules[0].acess` / `rules.0.acess` → ['rules', 0, 'acess']. */
export function fieldPath(field: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const part of field.split('.')) {
    const m = /^([^[\]]*)((?:\[\d+\])*)$/.exec(part);
    if (!m) return [];
    if (m[1] !== '') out.push(/^\d+$/.test(m[1]!) ? Number(m[1]) : m[1]!);
    for (const i of m[2]!.matchAll(/\[(\d+)\]/g)) out.push(Number(i[1]));
  }
  return out;
}

/** Where a key (or, failing that, the nearest enclosing one) is written in YAML or JSON text. */
function yamlPosition(text: string, path: (string | number)[]): Position | undefined {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, keepSourceTokens: false });
  for (let n = path.length; n > 0; n--) {
    const parent = n === 1 ? doc.contents : doc.getIn(path.slice(0, n - 1), true);
    if (!isMap(parent)) continue;
    const pair = parent.items.find((p) => {
      const key = p.key as { value?: unknown } | null;
      return key !== null && typeof key === 'object' && String(key.value) === String(path[n - 1]);
    });
    const range = (pair?.key as { range?: [number, number, number] } | undefined)?.range;
    if (range) {
      const { line, col } = lineCounter.linePos(range[0]);
      return { line, col };
    }
  }
  return undefined;
}

/** TOML has no position API here: the key's line after its table header (`[file_policy]`), found by text. */
function tomlPosition(text: string, path: (string | number)[]): Position | undefined {
  const names = path.filter((p): p is string => typeof p === 'string');
  const key = names.at(-1);
  if (key === undefined) return undefined;
  const table = names.slice(0, -1).join('.');
  const lines = text.split('\n');
  let current = '';
  for (const [i, raw] of lines.entries()) {
    const header = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?/.exec(raw);
    if (header) {
      current = header[1]!.replace(/\s*\.\s*/g, '.').replace(/"/g, '');
      if (current === names.join('.')) return { line: i + 1, col: raw.indexOf('[') + 1 };
      continue;
    }
    const m = new RegExp(`^(\\s*)"?${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"?\\s*=`).exec(raw);
    if (m && current === table) return { line: i + 1, col: m[1]!.length + 1 };
  }
  return undefined;
}

/** Line and column (1-based) of a field in a config text, if it can be found. */
export function positionOf(text: string, format: ConfigFormat, field: string): Position | undefined {
  const path = fieldPath(field);
  if (path.length === 0) return undefined;
  try {
    return format === 'toml' ? tomlPosition(text, path) : yamlPosition(text, path);
  } catch {
    return undefined;
  }
}
