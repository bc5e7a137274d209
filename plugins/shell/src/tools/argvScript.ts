/**
 * An argv array as a shell script that yields exactly that argv: every element single-quoted, so nothing
 * in it is split, expanded, globbed or read as an operator (`["cat", "~/x"]` stays the literal `~/x`, as
 * `execvp` would see it). The engine then analyses the command by its real words, without re-splitting.
 * Returns undefined for what no exec could receive: an empty argv, a non-string element, or a NUL byte.
 */
export function argvScript(argv: readonly unknown[]): string | undefined {
  if (argv.length === 0) return undefined;
  const words: string[] = [];
  for (const arg of argv) {
    if (typeof arg !== 'string' || arg.includes('\0')) return undefined;
    words.push(`'${arg.replaceAll("'", `'\\''`)}'`);
  }
  return words.join(' ');
}
