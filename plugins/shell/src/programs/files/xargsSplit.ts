/** How xargs reads its input items (GNU findutils 4.9.0, xargs(1)). */
export interface XargsInput {
  /** `-0`: NUL-separated, no quoting. */
  nul?: boolean;
  /** `-d C`: this character separates items, no quoting. */
  delimiter?: string;
  /** `-I`/`-i`/`-L`: each line is one item (blanks inside do not split it). */
  lines?: boolean;
  /** `-E STR`: input stops at an item equal to STR (default mode only). */
  eof?: string;
}

/**
 * Splits xargs input into items as xargs does: by default blanks and newlines separate, `'…'` and `"…"` quote
 * (not across a newline), `\` escapes the next character. Returns `null` where xargs would stop with an
 * error (an unmatched quote), so the caller is uncertain.
 */
export function xargsItems(text: string, o: XargsInput): string[] | null {
  if (o.nul || o.delimiter !== undefined) {
    const parts = text.split(o.nul ? '\0' : o.delimiter!);
    if (parts[parts.length - 1] === '' || (!o.nul && parts[parts.length - 1] === '\n')) parts.pop();
    return parts;
  }
  const items: string[] = [];
  let cur = '';
  let has = false;
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\n') return null;
      if (c === quote) quote = null;
      else cur += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      has = true;
      continue;
    }
    if (c === '\\') {
      if (i + 1 < text.length) cur += text[++i];
      has = true;
      continue;
    }
    const blank = c === ' ' || c === '\t';
    if (c === '\n' || (blank && !o.lines)) {
      if (has) {
        if (o.eof !== undefined && cur === o.eof) return items;
        items.push(cur);
      }
      cur = '';
      has = false;
      continue;
    }
    // With -I, leading blanks of a line are dropped.
    if (blank && !has) continue;
    cur += c;
    has = true;
  }
  if (quote) return null;
  if (has && !(o.eof !== undefined && cur === o.eof)) items.push(cur);
  return items;
}
