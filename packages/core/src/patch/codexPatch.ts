import type { PatchFile, PatchTargets } from './patchTypes.js';

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const HEADER = /^\*\*\* (Add|Update|Delete) File: (.*)$/;
const MOVE = /^\*\*\* Move to: (.*)$/;

/**
 * Reads a Codex `apply_patch` envelope the way codex-rs/apply-patch's parser does: `*** Begin Patch`, then
 * `*** Add File: p` (lines `+…`), `*** Delete File: p`, `*** Update File: p` (optionally `*** Move to: q`,
 * then hunks of `@@`, ` `, `-`, `+` lines and `*** End of File`), then `*** End Patch`. Codex's lenient mode
 * also accepts the envelope wrapped in a heredoc (`<<'EOF'` … `EOF`). Anything else does not parse: Codex
 * would refuse it, and a guard cannot know what it would have written.
 */
export function parseCodexPatch(text: string): PatchTargets {
  let lines = text
    .trim()
    .split('\n')
    .map((l) => l.replace(/\r$/, ''));
  // codex-rs/apply-patch `parse_patch` (lenient): `<<EOF`, `<<'EOF'` or `<<"EOF"` around the envelope.
  if (lines.length >= 4 && /^<<(['"]?)EOF\1$/.test(lines[0]!.trim()) && lines.at(-1)!.trim() === 'EOF')
    lines = lines.slice(1, -1);
  if (lines[0]?.trim() !== BEGIN) return { ok: false, reason: `the patch does not start with "${BEGIN}"` };
  if (lines.at(-1)?.trim() !== END) return { ok: false, reason: `the patch does not end with "${END}"` };
  const files: PatchFile[] = [];
  let section: 'add' | 'update' | 'delete' | undefined;
  let current: PatchFile | undefined;
  for (let i = 1; i < lines.length - 1; i++) {
    const line = lines[i]!;
    const header = HEADER.exec(line.trim());
    if (header) {
      const path = header[2]!.trim();
      if (path === '') return { ok: false, reason: `line ${i + 1}: a file header without a path` };
      const action = header[1] === 'Add' ? 'add' : header[1] === 'Delete' ? 'delete' : 'update';
      current = { path, action };
      files.push(current);
      section = action;
      continue;
    }
    const move = MOVE.exec(line.trim());
    if (move) {
      const to = move[1]!.trim();
      if (section !== 'update' || current === undefined || to === '')
        return { ok: false, reason: `line ${i + 1}: "*** Move to:" outside an Update File section` };
      current.action = 'move-from';
      files.push({ path: to, action: 'move-to' });
      section = undefined; // one move per file; hunks may follow
      continue;
    }
    if (line.trim() === BEGIN || line.trim() === END)
      return { ok: false, reason: `line ${i + 1}: a second "${line.trim()}"` };
    if (section === 'add') {
      if (line.startsWith('+')) continue;
    } else if (current?.action === 'update' || current?.action === 'move-from') {
      // Codex reads an empty line in a hunk as an empty context line.
      if (line === '' || /^[ +-]/.test(line) || line.startsWith('@@') || line === '*** End of File') continue;
    }
    return { ok: false, reason: `line ${i + 1} is not part of any file section: ${JSON.stringify(line)}` };
  }
  if (files.length === 0) return { ok: false, reason: 'the patch names no file' };
  return { ok: true, format: 'codex', files };
}
