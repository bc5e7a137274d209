import { escape as escapeGlob } from 'minimatch';
import { configError } from '../configError.js';
import { expandVars } from '../expandVars.js';

export interface LoadContext {
  env: Readonly<Record<string, string | undefined>>;
  agent?: string;
  /** wolo `--allow-path/-P` (seed 002's `cli_paths`): writes allowed there without confirmation. */
  cliPaths?: readonly string[];
}

/** A list of strings at `field`; absent is `undefined`, anything else than strings is a config error. */
export function stringList(value: unknown, file: string, field: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw configError(file, field, value, 'expected a list of paths');
  value.forEach((v, i) => {
    if (typeof v !== 'string' || v.trim() === '')
      throw configError(file, `${field}[${i}]`, v, 'expected a non-empty path');
  });
  return value as string[];
}

/** A directory named in a config becomes a pattern for it and everything beneath it. */
export function rootPattern(path: string, env: LoadContext['env'], file: string, field: string): string {
  const expanded = expandVars(path.trim(), env, file, field);
  // Keep `~` and `<workspace>` for binding; escape glob characters in the literal part.
  const head = /^(~[^/]*|<workspace>)/.exec(expanded)?.[0] ?? '';
  const rest = expanded.slice(head.length).replace(/\/+$/, '');
  const body = head + escapeGlob(rest);
  return body === '' ? '/**' : `${body}/**`;
}

/** Config paths with `..` are refused: a policy must say where it means. */
export function noTraversal(path: string, file: string, field: string): void {
  if (/(^|[/\\])\.\.([/\\]|$)/.test(path))
    throw configError(file, field, path, 'a path must not contain ".."');
}
