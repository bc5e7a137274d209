import { isDataKey, pathKeyKind, type ToolDescriptor } from '@toolgate/core';
import type { ToolSpec } from './types.js';

/** JSON Schema `format`s that name a file or a URI (a `file://` one is a path; a remote one is skipped). */
const PATH_FORMATS = new Set(['path', 'file-path', 'filepath', 'directory', 'uri', 'uri-reference', 'iri']);
/** Descriptions that say the value is a path: "Path to the file", "the output directory", "folder to scan". */
const PATH_WORDS = /\b(?:paths?|director(?:y|ies)|folders?|file ?names?)\b/i;
const MAX_DEPTH = 8;

type Schema = Record<string, unknown>;

function isSchema(v: unknown): v is Schema {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The schemas a property may take (`anyOf`, `oneOf`, `allOf` alternatives, or itself). */
function variants(s: Schema): Schema[] {
  const out = [s];
  for (const k of ['anyOf', 'oneOf', 'allOf'])
    if (Array.isArray(s[k])) for (const v of s[k] as unknown[]) if (isSchema(v)) out.push(v);
  return out;
}

function saysPath(name: string, s: Schema): boolean {
  const kind = pathKeyKind(name);
  if (kind === 'path' || kind === 'end') return true;
  if (typeof s.format === 'string' && PATH_FORMATS.has(s.format)) return true;
  return typeof s.description === 'string' && !isDataKey(name) && PATH_WORDS.test(s.description);
}

/** Selectors of every path-bearing property of an input schema, at any depth (`ops[].path`). */
export function schemaSelectors(schema: unknown): string[] {
  const out = new Set<string>();
  const walk = (s: Schema, prefix: string, depth: number): void => {
    if (depth > MAX_DEPTH || !isSchema(s.properties)) return;
    for (const [name, raw] of Object.entries(s.properties)) {
      if (!isSchema(raw) || /[.[\]\s]/.test(name)) continue;
      const at = prefix === '' ? name : `${prefix}.${name}`;
      for (const v of variants(raw)) {
        const items = isSchema(v.items) ? variants(v.items) : [];
        const leaf = v.type === 'string' || items.some((i) => i.type === 'string') || v.type === undefined;
        if (leaf && (saysPath(name, v) || items.some((i) => saysPath(name, i)))) out.add(at);
        if (v.type === 'object' || isSchema(v.properties)) walk(v, at, depth + 1);
        for (const i of items)
          if (i.type === 'object' || isSchema(i.properties)) walk(i, `${at}[]`, depth + 1);
      }
    }
  };
  if (isSchema(schema)) walk(schema, '', 0);
  return [...out];
}

/**
 * What an MCP tool descriptor says about itself: its input schema says where the paths are (property
 * names, `format`, descriptions, at any depth), its annotations whether they are read (`readOnlyHint`
 * without `destructiveHint`) or written (anything else: a hint that is absent is no promise).
 */
export function specFromDescriptor(tool: ToolDescriptor): ToolSpec | undefined {
  const schema = tool.inputSchema as { properties?: unknown } | undefined;
  if (!isSchema(schema) || !isSchema(schema.properties)) return undefined;
  const paths = schemaSelectors(schema);
  if (paths.length === 0) return { op: 'none', paths: [] };
  const ann = tool.annotations;
  const op = ann?.readOnlyHint === true && ann.destructiveHint !== true ? 'read' : 'write';
  return { op, paths };
}
