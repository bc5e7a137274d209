/** One file an `apply_patch` envelope names, and what the patch does to it. */
export interface PatchFile {
  path: string;
  /** `delete` and the source of a `move` act on the directory entry itself (a link is removed, not followed). */
  action: 'add' | 'update' | 'delete' | 'move-from' | 'move-to';
}

const HEADER = /^\*\*\* (Add|Update|Delete) File: (.*)$/;
const MOVE = /^\*\*\* Move to: (.*)$/;

/**
 * The files a Codex `apply_patch` envelope (`*** Begin Patch` … `*** End Patch`) creates, changes, moves or
 * deletes, per the format codex-rs/apply-patch parses: `*** Add File: p`, `*** Update File: p` (optionally
 * followed by `*** Move to: q`), `*** Delete File: p`. Every header anywhere in the text counts, so text
 * around the envelope can only add files, never hide one. Undefined when the text has no envelope.
 */
export function patchFiles(text: string): PatchFile[] | undefined {
  if (!text.includes('*** Begin Patch')) return undefined;
  const out: PatchFile[] = [];
  let lastUpdate: PatchFile | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    const header = HEADER.exec(line.trim());
    if (header) {
      const kind = header[1];
      const file: PatchFile = {
        path: (header[2] ?? '').trim(),
        action: kind === 'Add' ? 'add' : kind === 'Delete' ? 'delete' : 'update',
      };
      out.push(file);
      lastUpdate = kind === 'Update' ? file : undefined;
      continue;
    }
    const move = MOVE.exec(line.trim());
    if (move) {
      if (lastUpdate) lastUpdate.action = 'move-from';
      out.push({ path: (move[1] ?? '').trim(), action: 'move-to' });
    }
  }
  return out;
}
