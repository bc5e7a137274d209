// Argument names and value shapes that suggest a path. Used only to fail closed: a tool nobody classified
// whose arguments look like paths is denied (UNKNOWN_TOOL), never waved through.
const PATH_KEY =
  /(^|_|[a-z])(path|paths|file|files|dir|directory|folder|dest|destination|source|src|target|cwd|root)s?$/i;
const PATH_VALUE = /^(\/|~|\.{1,2}\/|\$|[A-Za-z]:\\)/;

function looksLikePath(value: unknown): boolean {
  return typeof value === 'string' && PATH_VALUE.test(value);
}

/** The first argument (depth-first, two levels) that looks like it names a path, or undefined. */
export function pathLikeArg(args: Record<string, unknown>, depth = 0): string | undefined {
  for (const [key, value] of Object.entries(args)) {
    if (typeof value === 'string' && (PATH_KEY.test(key) || looksLikePath(value))) return key;
    if (
      Array.isArray(value) &&
      value.some((v) => looksLikePath(v) || (PATH_KEY.test(key) && typeof v === 'string'))
    )
      return key;
    if (depth < 2 && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const inner = pathLikeArg(value as Record<string, unknown>, depth + 1);
      if (inner) return `${key}.${inner}`;
    }
  }
  return undefined;
}
