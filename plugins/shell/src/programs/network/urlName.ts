import type { CommandContext } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';

/** What the downloaders name files after: the URL's host (`host[:port]`), its path's segments, its query. */
export interface UrlParts {
  scheme: string;
  /** `host[:port]` without user info, lower case. */
  host: string;
  /** Path segments before the last one, after `.`/`..` are removed (RFC 3986 5.2.4). */
  dirs: string[];
  /** The last segment: `''` for a path ending in `/` or no path at all. */
  name: string;
  query: string | undefined;
}

const DEFAULT_PORT: Readonly<Record<string, number>> = { http: 80, https: 443, ftp: 21, ftps: 990 };

/**
 * Splits a literal URL. `backslash`: `\` separates segments (curl's -O name takes what follows the last `/`
 * or `\`: strace, curl 7.88, `/a\b` wrote `b`; wget keeps `a\b`). `undefined` when the field is not one
 * known string.
 */
export function urlParts(u: Field, backslash: boolean): UrlParts | undefined {
  if (u.uncertain !== undefined || u.under || u.pipe) return undefined;
  const m = /^(?:([a-z][a-z0-9+.-]*):\/\/)?([^/?#\\]*)([^?#]*)(?:\?([^#]*))?(?:#.*)?$/is.exec(u.value);
  if (!m) return undefined;
  const segments: string[] = [];
  const raw = (m[3] ?? '').split(backslash ? /[/\\]/ : /\//).slice(1);
  raw.forEach((s, k) => {
    const last = k === raw.length - 1;
    if (s === '.') {
      if (last) segments.push('');
    } else if (s === '..') {
      segments.pop();
      if (last) segments.push('');
    } else segments.push(s);
  });
  const name = segments.pop() ?? '';
  const scheme = (m[1] ?? 'http').toLowerCase();
  // The scheme's own port is not part of the name (wget -x: `h:80` is `h`).
  const port = DEFAULT_PORT[scheme];
  const host = (m[2] ?? '')
    .replace(/^.*@/, '')
    .toLowerCase()
    .replace(port === undefined ? /$^/ : new RegExp(`:${port}$`), '');
  return { scheme, host, dirs: segments, name, query: m[4] };
}

/**
 * curl's `-O` name (curl(1) `--remote-name`): the last segment of the URL's path, query and fragment dropped,
 * percent-escapes kept as written (strace, curl 7.88: `/a.txt?x=1#f` wrote `a.txt`, `/a%20b` wrote `a%20b`).
 * A URL with no name makes curl 7.88 fail ("Remote file name has no length"); later curls write
 * `curl_response` — both covered by that name. `undefined`: not knowable (escapes another curl might decode
 * into a `/`).
 */
export function curlRemoteName(u: Field): string[] | undefined {
  const p = urlParts(u, true);
  if (!p) return undefined;
  if (p.name === '') return ['curl_response'];
  if (!p.name.includes('%')) return [p.name];
  let decoded: string;
  try {
    decoded = decodeURIComponent(p.name);
  } catch {
    return [p.name];
  }
  if (/[/\\\0]/.test(decoded) || decoded === '.' || decoded === '..') return undefined;
  return [...new Set([p.name, decoded])];
}

/**
 * wget's name for a URL (wget 1.21 `url_file_name`): the last path segment, `?query` kept (strace:
 * `/a.txt?x=1#f` wrote `a.txt?x=1`), `index.html` (or `--default-page`) for none; percent-escapes are
 * decoded except where the result is unsafe (`/a%20b` wrote `a b`) — a name with escapes, or a query wget
 * would escape, is not known here (`undefined`).
 */
export function wgetFileName(p: UrlParts, defaultPage: string): string | undefined {
  const name = p.name === '' ? defaultPage : p.name;
  if (/[%\0]/.test(name)) return undefined;
  if (p.query === undefined) return name;
  if (/[%/\\\0]/.test(p.query)) return undefined;
  return `${name}?${p.query}`;
}

/**
 * The file a download without clobbering writes: `name` when it does not exist, else the first free
 * `name.N` (wget's default, curl's --no-clobber) — read from what exists now.
 */
export function freeName(cx: CommandContext, dir: Field, name: string): Field {
  const at = (n: string): Field => ({ ...dir, value: `${dir.value.replace(/\/+$/, '')}/${n}`, glob: -1 });
  let f = at(name);
  for (let k = 1; k < 1000 && cx.exists(f); k++) f = at(`${name}.${k}`);
  return f;
}

/** `dir/name` as a field that is never globbed (the name came from a URL, not from the shell). */
export function inDir(dir: Field, name: string): Field {
  if (dir.value === '.' || dir.value === '')
    return { ...dir, value: name, raw: name, glob: -1, tilde: false };
  return { ...dir, value: `${dir.value.replace(/\/+$/, '')}/${name}`, glob: -1 };
}

/**
 * The directories a program creates for `f` (curl `--create-dirs`, wget `-x`): every missing ancestor up to
 * the first that exists (strace: `mkdir("sub")`, `mkdir("sub/dir")` before `sub/dir/x`).
 */
export function createdDirs(cx: CommandContext, f: Field): void {
  const parts = f.value.split('/');
  const made: Field[] = [];
  for (let k = parts.length - 1; k > 0; k--) {
    const dir = parts.slice(0, k).join('/');
    if (dir === '' || dir === '.' || dir === '..' || dir === '~') break;
    const d = { ...f, value: dir, glob: f.glob >= dir.length ? -1 : f.glob };
    if (cx.exists(d)) break;
    made.push(d);
  }
  for (const d of made.reverse()) cx.write(d, { tag: 'mkdir' });
}
