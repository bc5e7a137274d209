/** What a patch does to one file it names. */
export type PatchAction = 'add' | 'update' | 'delete' | 'move-from' | 'move-to' | 'copy-from';

/** One file a patch names, as written (relative to the directory the patch is applied in, or absolute). */
export interface PatchFile {
  path: string;
  action: PatchAction;
}

/** A parsed patch: the files it touches, or why it does not parse (then nothing about it can be trusted). */
export type PatchTargets =
  | { ok: true; format: 'codex' | 'unified'; files: PatchFile[] }
  | { ok: false; reason: string };
