import { readFileSync } from 'node:fs';
import { ToolgateError } from '@toolgate/core';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { jsonErrorOffset } from './jsonErrorOffset.js';

export type ConfigFormat = 'yaml' | 'json' | 'toml';

export function formatOf(file: string, fallback: ConfigFormat): ConfigFormat;
export function formatOf(file: string, fallback: undefined): ConfigFormat | undefined;
export function formatOf(file: string, fallback: ConfigFormat | undefined): ConfigFormat | undefined {
  if (/\.toml$/i.test(file)) return 'toml';
  if (/\.json$/i.test(file)) return 'json';
  if (/\.ya?ml$/i.test(file)) return 'yaml';
  return fallback;
}

export function readConfig(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new ToolgateError(
      'TOOLGATE_ERR_IO',
      `${file}: cannot read the policy file: ${(error as Error).message}`,
      {
        file,
      },
    );
  }
}

/** Line and column (1-based) of a character offset. */
function lineCol(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, offset));
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

/** Where a parser says the syntax error is: smol-toml and yaml give line and column, JSON an offset. */
function errorPosition(
  error: unknown,
  text: string,
  format: ConfigFormat,
): { line: number; column: number } | undefined {
  const e = error as {
    line?: unknown;
    column?: unknown;
    linePos?: Array<{ line: number; col: number }>;
    message?: string;
  };
  if (format === 'toml' && typeof e.line === 'number' && typeof e.column === 'number')
    return { line: e.line, column: e.column };
  if (format === 'yaml' && Array.isArray(e.linePos) && e.linePos[0])
    return { line: e.linePos[0].line, column: e.linePos[0].col };
  const lc = /line (\d+) column (\d+)/.exec(e.message ?? '');
  if (lc) return { line: Number(lc[1]), column: Number(lc[2]) };
  const at = /at position (\d+)/.exec(e.message ?? '');
  if (at) return lineCol(text, Number(at[1]));
  if (format === 'json') {
    const offset = jsonErrorOffset(text);
    if (offset >= 0) return lineCol(text, offset);
  }
  return undefined;
}

/** Parses YAML, JSON or TOML text; a syntax error names the file, the line and the column. */
export function parseConfig(text: string, file: string, format: ConfigFormat): unknown {
  try {
    if (format === 'toml') return parseToml(text);
    if (format === 'json') return JSON.parse(text);
    return parseYaml(text, { prettyErrors: true });
  } catch (error) {
    const pos = errorPosition(error, text, format);
    const first = (error as Error).message.split('\n')[0] ?? '';
    const where = pos && !/\bline \d+/.test(first) ? ` (at line ${pos.line}, column ${pos.column})` : '';
    throw new ToolgateError(
      'TOOLGATE_ERR_INVALID_CONFIG',
      `${file}: not valid ${format.toUpperCase()}: ${first}${where}`,
      { file, ...(pos ? { line: pos.line, column: pos.column } : {}) },
    );
  }
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
