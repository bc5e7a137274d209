/** Longest string judged for its shape: a path is short; longer text is content. */
const MAX_PATH_TEXT = 4096;

/**
 * A `file://` URI's path (`file:///etc/passwd`, `file://localhost/etc/x`), percent-decoded; undefined for
 * anything else. A URI naming another host, or one that does not decode, is returned as `null`: it names a
 * file nobody can locate here, which a caller treats as uncertain.
 */
export function fileUriPath(value: string): string | null | undefined {
  if (!/^file:/i.test(value)) return undefined;
  try {
    const url = new URL(value);
    if (url.protocol !== 'file:') return undefined;
    if (url.hostname !== '' && url.hostname !== 'localhost') return null;
    const path = decodeURIComponent(url.pathname);
    return path.includes('\0') ? null : path;
  } catch {
    return null;
  }
}

/** A URL of a scheme other than `file:` (`https://…`, `s3://…`): a remote resource, not a local path. */
export function isRemoteUrl(value: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) && !/^file:/i.test(value);
}

/**
 * Whether a string has the shape of a local path on its own, whatever argument carries it: absolute (`/x`,
 * `C:\x`), home-relative (`~`, `~/x`, `~user/x`), explicitly relative (`./x`, `../x`), variable-rooted
 * (`$HOME/x`) or a `file://` URI.
 * One line, no longer than a path can be.
 *
 * @example
 * ```ts
 * import { looksLikePath } from '@toolgate/core';
 * looksLikePath('/root/.ssh/authorized_keys'); // true
 * looksLikePath('hello world'); // false
 * ```
 */
export function looksLikePath(value: string): boolean {
  if (value.length === 0 || value.length > MAX_PATH_TEXT || /[\n\r]/.test(value)) return false;
  if (/^file:/i.test(value)) return true;
  if (value.startsWith('/')) return value.length === 1 || !/^\/[/*]/.test(value) || value.startsWith('//');
  if (/^~[A-Za-z0-9._-]*(\/|$)/.test(value)) return true;
  if (/^\.\.?(\/|\\|$)/.test(value)) return true;
  // `$HOME/x`, `${XDG_CONFIG_HOME}/y`: the resolver expands variables, so these name paths too.
  if (/^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?(\/|$)/.test(value)) return true;
  return /^[A-Za-z]:[\\/]/.test(value);
}

/**
 * Looser: a value that could name a file under an argument that sometimes does (`target: "out.txt"`,
 * `to: "backup/x"`): path-shaped, with a separator, or a file name with an extension. `"prod"`,
 * `"bob@example.com"` and `"Paris"` are not.
 */
export function looksPathish(value: string): boolean {
  if (looksLikePath(value)) return true;
  if (value.length === 0 || value.length > MAX_PATH_TEXT || /[\n\r]/.test(value) || isRemoteUrl(value))
    return false;
  if (/[/\\]/.test(value)) return true;
  return /^[^\s@:]+\.[A-Za-z0-9]{1,10}$/.test(value);
}
