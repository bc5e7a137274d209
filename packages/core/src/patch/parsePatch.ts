import { parseCodexPatch } from './codexPatch.js';
import type { PatchTargets } from './patchTypes.js';
import { parseUnifiedDiff } from './unifiedDiff.js';

/**
 * The files a patch given to an `apply_patch` tool touches: a Codex envelope (`*** Begin Patch`) or a
 * unified diff (`--- a/x` / `+++ b/x`, git headers). `{ok: false}` when it is neither or does not parse.
 * `embedded`: the text is a shell script that feeds the patch to `apply_patch` (`apply_patch <<'EOF'` …):
 * the envelope is read from inside it, and every file header anywhere in the text counts.
 *
 * @example
 * ```ts
 * import { parsePatch } from '@toolgate/core';
 * parsePatch('*** Begin Patch\n*** Delete File: a.txt\n*** End Patch');
 * // {ok: true, format: 'codex', files: [{path: 'a.txt', action: 'delete'}]}
 * ```
 */
export function parsePatch(text: string, options: { embedded?: boolean } = {}): PatchTargets {
  if (typeof text !== 'string') return { ok: false, reason: 'the patch is not text' };
  if (text.includes('\0')) return { ok: false, reason: 'the patch holds a NUL byte' };
  if (options.embedded) return embedded(text);
  if (
    text.trimStart().startsWith('*** Begin Patch') ||
    /^<<(['"]?)EOF\1\s*\n\s*\*\*\* Begin Patch/.test(text.trim())
  )
    return parseCodexPatch(text);
  return parseUnifiedDiff(text);
}

function embedded(text: string): PatchTargets {
  const start = text.indexOf('*** Begin Patch');
  const end = text.lastIndexOf('*** End Patch');
  if (start === -1 || end < start)
    return { ok: false, reason: 'no "*** Begin Patch" … "*** End Patch" envelope' };
  const inner = parseCodexPatch(text.slice(start, end + '*** End Patch'.length));
  if (!inner.ok) return inner;
  // Headers outside the envelope (a second envelope, text around it) can only add files, never hide one.
  const seen = new Set(inner.files.map((f) => `${f.action}\0${f.path}`));
  const files = [...inner.files];
  for (const line of text.split('\n')) {
    const m = /^\s*\*\*\* (?:(Add|Update|Delete) File|Move to): (.*?)\r?$/.exec(line);
    if (!m) continue;
    const file = {
      path: m[2]!.trim(),
      action: m[1] === 'Delete' ? 'delete' : m[1] === 'Add' ? 'add' : m[1] ? 'update' : 'move-to',
    } as const;
    if (file.path !== '' && !seen.has(`${file.action}\0${file.path}`)) files.push(file);
  }
  return { ...inner, files };
}
