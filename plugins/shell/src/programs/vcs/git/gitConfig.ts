/** One `key = value` of a git config file; the key as `section.subsection.name`, section and name lower-cased. */
export interface ConfigEntry {
  key: string;
  value: string;
}

/**
 * Parses a git config file (INI-like: `[section]`, `[section "sub"]`, `key = value`, `;`/`#` comments,
 * quoted values, backslash continuations). A bare key (`[core] bare`) is `true`. Lenient: what it cannot
 * read it skips, which is safe because callers treat only known keys as harmless.
 */
export function parseConfig(text: string): ConfigEntry[] {
  const out: ConfigEntry[] = [];
  let section = '';
  const lines = text.replace(/\\\r?\n/g, '').split(/\r?\n/);
  for (const raw of lines) {
    let line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const head = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$/.exec(line);
    if (head) {
      const [, name, sub] = head;
      // `[section.sub]` is the old spelling of a lower-cased subsection.
      section =
        sub !== undefined ? `${name!.toLowerCase()}.${sub.replace(/\\(.)/g, '$1')}` : name!.toLowerCase();
      line = head[3]!.trim();
      if (line === '') continue;
    }
    const kv = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (!kv) continue;
    out.push({
      key: `${section}.${kv[1]!.toLowerCase()}`,
      value: kv[2] === undefined ? 'true' : unquote(kv[2]),
    });
  }
  return out;
}

function unquote(v: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < v.length; i++) {
    const c = v[i]!;
    if (c === '"') quoted = !quoted;
    else if (c === '\\' && i + 1 < v.length) {
      const n = v[++i]!;
      out += n === 'n' ? '\n' : n === 't' ? '\t' : n;
    } else if (!quoted && (c === '#' || c === ';')) break;
    else out += c;
  }
  return out.trim();
}

/** The last value of `key` (git's "last one wins"), or `undefined`. */
export function configValue(entries: readonly ConfigEntry[], key: string): string | undefined {
  let v: string | undefined;
  for (const e of entries) if (e.key === key) v = e.value;
  return v;
}
