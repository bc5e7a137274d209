const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** Quotes one word for a POSIX shell (`'…'`, with `'` as `'\''`). */
export function shellQuote(word: string): string {
  return word !== '' && SAFE.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** An argv as one POSIX shell command line that runs exactly that argv. */
export function shellJoin(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}
