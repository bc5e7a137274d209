import { statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

export { DEFAULT_PATH } from '../state/defaultPath.js';

/** Which file a command name runs: found on `$PATH`, not found anywhere, or not knowable. */
export type ProgramLookup =
  | { kind: 'found'; file: string; entry: string }
  | { kind: 'missing' }
  | { kind: 'uncertain'; reason: string };

/**
 * `stat(2)` results of one analysis (a script's commands search the same PATH directories again and again):
 * memoised for that analysis only, never across calls — a program can appear between two calls.
 */
const SYSTEM_DIRS = new Set([
  '/usr/local/sbin',
  '/usr/local/bin',
  '/usr/sbin',
  '/usr/bin',
  '/sbin',
  '/bin',
  '/usr/games',
  '/usr/local/games',
  '/snap/bin',
]);

export type StatMemo = Map<string, { file: boolean; exec: boolean; mode: number } | null>;

function statOf(
  path: string,
  memo: StatMemo | undefined,
): { file: boolean; exec: boolean; mode: number } | null {
  const hit = memo?.get(path);
  if (hit !== undefined) return hit;
  const st = statSync(path, { throwIfNoEntry: false });
  const r = st === undefined ? null : { file: st.isFile(), exec: (st.mode & 0o111) !== 0, mode: st.mode };
  memo?.set(path, r);
  return r;
}

/**
 * Program identity (invariant 6): the file a command name runs, searched through `$PATH` as bash does —
 * entries in order, an empty entry is the cwd, relative entries against the cwd, the first executable
 * regular file of that name wins (bash's hash table is ignored: a fresh `bash -c` has none). Whether the
 * agent can write the file it finds is the policy's to say (the caller marks the access `runs`).
 *
 * An entry before the hit still matters when the program could appear there before it runs: a directory
 * anyone may write (`/tmp` on `$PATH`), or one this same line writes into (`writtenInto`) — then which file
 * runs is not known.
 */
export function findProgram(
  name: string,
  pathValue: string,
  cwd: string | null,
  writtenInto: (dir: string) => boolean,
  memo?: StatMemo,
): ProgramLookup {
  for (const raw of pathValue.split(':')) {
    const entry = raw === '' ? '.' : raw;
    if (!isAbsolute(entry) && cwd === null)
      return { kind: 'uncertain', reason: `$PATH entry ${entry} is relative to an unknown directory` };
    const dir = isAbsolute(entry) ? entry : join(cwd!, entry);
    const file = join(dir, name);
    const st = statOf(file, memo);
    if (st?.file && st.exec) return { kind: 'found', file, entry };
    if (writtenInto(dir))
      return { kind: 'uncertain', reason: `this line may create ${name} in $PATH entry ${entry} first` };
    // A system program directory made world-writable is a broken machine, not something an agent can do
    // without a write the policy judged: skip the directory's stat there (the common miss costs one stat).
    if (SYSTEM_DIRS.has(dir)) continue;
    const mode = statOf(dir, memo)?.mode;
    // The sticky bit (/tmp) protects others' files, not the creation of new names.
    if (mode !== undefined && (mode & 0o002) !== 0)
      return { kind: 'uncertain', reason: `$PATH entry ${entry} is writable by anyone` };
  }
  return { kind: 'missing' };
}
