import type { Field } from '../../state/expandWord.js';
import { literal } from '../spec.js';

/**
 * Where `-iSUFFIX` puts the backup of `file`: `*` in SUFFIX stands for the file's name, otherwise SUFFIX
 * is appended; a SUFFIX with a `/` names another directory, relative to the file's (checked with GNU sed; perl -i reads it the same way).
 */
export function backupOf(file: Field, suffix: string): Field | null {
  // Paths from a pipe (`git ls-files -z | xargs -0 sed -i'nv'`): each backup is a name beside a printed path
  // that is not itself printed (tracked `.e` → `.env`), so the printed set's filter does not cover it.
  if (file.under) {
    const { under: _under, underFilters: _filters, ...name } = file;
    return { ...name, uncertain: `the backups of ${file.raw} are new names` };
  }
  // A glob's matches each get a backup beside them under a new name (`.e*` with suffix `nv`: `.e` → `.env`),
  // which the glob's own walk of what exists does not judge.
  if (file.glob !== -1) return { ...file, glob: -1, uncertain: `the backups of ${file.raw} are new names` };
  if (file.uncertain !== undefined) return suffix.includes('/') ? null : file;
  const slash = file.value.lastIndexOf('/');
  const dir = slash === -1 ? '' : file.value.slice(0, slash + 1);
  const base = file.value.slice(slash + 1);
  const name = suffix.includes('*') ? suffix.replaceAll('*', base) : base + suffix;
  return { ...literal(name.startsWith('/') ? name : dir + name), tilde: file.tilde && !name.startsWith('/') };
}
