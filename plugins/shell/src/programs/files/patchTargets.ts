/** What a diff says it changes: the file names in its headers, and whether it is something else. */
export interface DiffTargets {
  /** Names as written in the headers (`a/src/x.ts`), old and new sides, without `/dev/null`. */
  names: string[];
  /** Why the diff cannot be read as plain unified/context/git hunks, if so. */
  unknown?: string;
}

/** Names beyond this in one diff are not everyday use: uncertain instead of slow. */
const MAX_NAMES = 1000;

/**
 * Reads the file names of a unified, context or git diff (`--- a/x`, `+++ b/x`, `*** a/x`, `diff --git a/x b/x`,
 * `rename from/to`, `copy from/to`, `Index: x`). A quoted git name, a symlink the patch would create, or a
 * diff with no header at all (an ed script or a normal diff, which patch may hand to `ed`) are `unknown`.
 */
export function diffTargets(text: string): DiffTargets {
  const names = new Set<string>();
  let headers = 0;
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const header = /^(?:---|\+\+\+|\*\*\*) (.+)$/.exec(line);
    const git = /^diff --git (\S+) (\S+)$/.exec(line);
    const meta = /^(?:rename|copy) (?:from|to) (.+)$|^Index: (.+)$/.exec(line);
    if (/^(?:new|deleted) file mode 120000|^(?:old|new) mode 120000/.test(line))
      return { names: [], unknown: 'the patch creates or changes a symlink' };
    let name: string | undefined;
    if (header) {
      // `*** 1,5 ****` and `--- 1,5 ----` are context-diff hunk ranges, not headers.
      if (/^(?:\*\*\*|---) \d+(?:,\d+)? (?:\*\*\*\*|----)$/.test(line)) continue;
      name = header[1]!.split('\t')[0]!.replace(/\s+\d{4}-\d\d-\d\d .*$/, '');
    } else if (git) {
      names.add(git[1]!);
      name = git[2]!;
    } else if (meta) name = (meta[1] ?? meta[2])!;
    if (name === undefined) continue;
    headers++;
    if (name.startsWith('"')) return { names: [], unknown: `a quoted file name ${name}` };
    if (name !== '/dev/null') names.add(name);
    if (names.size > MAX_NAMES) return { names: [], unknown: `more than ${MAX_NAMES} files` };
  }
  if (headers === 0) return { names: [], unknown: 'no unified, context or git header (an ed script?)' };
  return { names: [...names] };
}

/**
 * A name after `-p N` (GNU patch: strip the smallest prefix holding N slashes, runs of slashes counting as
 * one); without `-p`, GNU patch uses the base name. `null` when the name has fewer than N slashes.
 */
export function stripName(name: string, strip: number | undefined): string | null {
  if (strip === undefined) return name.slice(name.lastIndexOf('/') + 1) || null;
  let rest = name;
  for (let i = 0; i < strip; i++) {
    const slash = rest.indexOf('/');
    if (slash === -1) return null;
    rest = rest.slice(slash).replace(/^\/+/, '');
  }
  return rest === '' ? null : rest;
}
