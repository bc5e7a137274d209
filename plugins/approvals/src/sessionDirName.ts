import { createHash } from 'node:crypto';

/**
 * A file-system-safe, injective name for a session id. The id is attacker-influenced (an agent or a remote
 * client may choose it), so it must never escape the sessions directory (`../x`, `/abs`, `.`), and two
 * different ids must never share a file (replacing bad characters with `_` would merge `a/b` with `a_b`, and
 * with it their grants). `encodeURIComponent` is injective and leaves no `/`; `.` is encoded too, so `.` and
 * `..` cannot occur. Over-long names are hashed behind a `%` no encoded id can produce (`%` is always
 * followed by two hex digits there).
 */
export function sessionDirName(sessionId: string): string {
  const encoded = encodeURIComponent(sessionId).replaceAll('.', '%2E').replaceAll('*', '%2A');
  if (encoded.length > 0 && encoded.length <= 128) return encoded;
  return `%sha256-${createHash('sha256').update(sessionId).digest('hex')}`;
}
