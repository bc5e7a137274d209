import type { Field } from '../../state/expandWord.js';

/**
 * The scheme and authority of a URL word whose value is not fully known, when the unknown part can only be
 * in its path: the whole word is in double quotes (no word splitting can add operands or options), it starts
 * with a literal `scheme://host[:port]/`, and no `$` or backtick comes before that `/`.
 * `"https://api.github.com/repos/$OWNER/$REPO"` → `https://api.github.com/`; `"https://$HOST/x"`,
 * `"https://api.github.com$SUFFIX"` (the host may go on), `https://ok.com/$X` (unquoted) → `undefined`.
 */
export function knownUrlPrefix(f: Field): string | undefined {
  const m = /^"([a-zA-Z][a-zA-Z0-9+.-]*:\/\/[A-Za-z0-9.-]+(?::\d+)?\/)[^"\\]*"$/.exec(f.raw);
  if (!m || /[`$]/.test(m[1]!)) return undefined;
  return m[1];
}
