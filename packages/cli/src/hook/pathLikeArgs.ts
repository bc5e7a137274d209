import { findArgPaths } from '@toolgate/core';

/**
 * Where the first argument that names or looks like a path is (`ops[0].path`), at any depth, by core's
 * `findArgPaths` — the finder folder-rules and the shell plugin use. Used only to fail closed: a tool
 * nobody classified whose arguments look like paths is denied (UNKNOWN_TOOL), never waved through.
 */
export function pathLikeArg(args: Record<string, unknown>): string | undefined {
  const found = findArgPaths(args, { mode: 'loose' });
  if (found.overflow !== undefined) return '(arguments too deep or too large to check)';
  return found.found[0]?.where;
}
