import { sha256hex } from './sha256.js';

/** How tool-call arguments are made safe to keep in an audit trail. */
export interface RedactOptions {
  /** Extra argument names (any depth, case- and punctuation-insensitive) whose values are never written. */
  keys?: readonly string[];
  /** Longer strings are cut to this many characters plus a hash of the whole (default 256). */
  maxString?: number;
  /** Deeper values are replaced by a marker (default 6). */
  maxDepth?: number;
  /** Longer arrays keep their first items and a count (default 32). */
  maxItems?: number;
}

// Names whose values are file contents or secrets (issue 5): matched after lower-casing and dropping `_`/`-`.
const EXACT = new Set([
  'content',
  'contents',
  'data',
  'text',
  'body',
  'env',
  'environment',
  'stdin',
  'input',
  'newstring',
  'oldstring',
  'newstr',
  'oldstr',
  'patch',
  'diff',
  'buffer',
  'payload',
]);
// Any name containing one of these is a secret (`githubToken`, `DB_PASSWORD`, `x-api-key`).
const CONTAINS = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'apikey',
  'privatekey',
  'accesskey',
  'authorization',
  'cookie',
  'credential',
  'session',
];
// Secrets written inline in a string (a shell command, a URL): the value after the marker is replaced.
const INLINE = [
  /(\bbearer\s+)[A-Za-z0-9._~+/=-]{6,}/gi,
  /(\b[A-Za-z0-9_]*(?:password|passwd|secret|token|api_?key|apikey)[A-Za-z0-9_]*\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s&'"]+)/gi,
  /(\/\/[^/\s:@]+:)[^@\s/]+(?=@)/g,
];

const MARKERS = /[=:@]|bearer/i;

export function shortHash(value: string): string {
  return sha256hex(value).slice(0, 16);
}

export type Redactor = (value: unknown) => unknown;

/** Compiles the redaction once; the returned function copies, never mutates, the value it is given. */
export function createRedactor(options: RedactOptions = {}): Redactor {
  const exact = new Set(EXACT);
  for (const key of options.keys ?? []) exact.add(normalise(key));
  const maxString = options.maxString ?? 256;
  const maxDepth = options.maxDepth ?? 6;
  const maxItems = options.maxItems ?? 32;
  // Argument names repeat on every call of a tool: judge each name once (bounded, so hostile names cannot grow it).
  const judged = new Map<string, boolean>();
  const sensitive = (key: string) => {
    let hit = judged.get(key);
    if (hit === undefined) {
      const k = normalise(key);
      hit = exact.has(k) || CONTAINS.some((c) => k.includes(c));
      if (judged.size < 4096) judged.set(key, hit);
    }
    return hit;
  };
  const str = (s: string): string => {
    let out = s;
    // One cheap scan first: most strings (paths, names) carry none of the markers an inline secret needs.
    if (MARKERS.test(s))
      for (const re of INLINE) {
        re.lastIndex = 0;
        if (re.test(out)) {
          re.lastIndex = 0;
          out = out.replace(re, '$1[REDACTED]');
        }
      }
    if (out.length <= maxString) return out;
    return `${out.slice(0, maxString)}…[truncated ${s.length} chars sha256=${shortHash(s)}]`;
  };
  // `parents` is the path from the root (at most maxDepth objects): a short array beats a Set per call here.
  const walk = (value: unknown, depth: number, parents: object[]): unknown => {
    if (typeof value === 'string') return str(value);
    if (value === null || typeof value !== 'object') {
      return typeof value === 'bigint' || typeof value === 'function' || typeof value === 'symbol'
        ? String(value)
        : value;
    }
    if (parents.includes(value)) return '[Circular]';
    if (depth >= maxDepth) return '[Depth]';
    parents.push(value);
    try {
      if (Array.isArray(value)) {
        const items = value.slice(0, maxItems).map((v) => walk(v, depth + 1, parents));
        if (value.length > maxItems) items.push(`…[${value.length - maxItems} more items]`);
        return items;
      }
      const out: Record<string, unknown> = {};
      const source = value as Record<string, unknown>;
      for (const key of Object.keys(source)) {
        const v = source[key];
        out[key] = sensitive(key) ? redacted(v) : walk(v, depth + 1, parents);
      }
      return out;
    } finally {
      parents.pop();
    }
  };
  return (value) => walk(value, 0, []);
}

function normalise(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** A secret is never written, not even truncated: its type, size and a short hash prove what it was. */
function redacted(value: unknown): string {
  if (value === undefined || value === null) return `[REDACTED ${String(value)}]`;
  let text: string;
  try {
    text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  const kind = Array.isArray(value) ? 'array' : typeof value;
  return `[REDACTED ${kind} len=${text.length} sha256=${shortHash(text)}]`;
}
