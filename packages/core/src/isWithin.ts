/**
 * Whether absolute, normalised `path` is `root` or lies beneath it — by path component, never by string
 * prefix: `/ws-evil` is not within `/ws`.
 */
export function isWithin(path: string, root: string): boolean {
  if (root === '/') return path.startsWith('/');
  if (!path.startsWith(root)) return false;
  return path.length === root.length || path.charCodeAt(root.length) === 47 /* '/' */;
}
