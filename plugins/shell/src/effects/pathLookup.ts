import { realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';

// Where a command name is looked up once a script has changed $PATH. Programs in these directories are the
// ones the command table describes; anywhere else (a venv's bin, ./node_modules/.bin, a relative entry) a
// file of that name is some other program.
const SYSTEM_DIRS = new Set([
  '/bin',
  '/usr/bin',
  '/usr/local/bin',
  '/sbin',
  '/usr/sbin',
  '/usr/local/sbin',
  '/usr/games',
  '/usr/local/games',
  '/snap/bin',
]);

/** bash builtins and keywords: never looked up in $PATH. */
export const BASH_BUILTINS = new Set(
  (
    '. : [ [[ alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs ' +
    'disown echo enable eval exec exit export false fc fg getopts hash help history jobs kill let local ' +
    'logout mapfile popd printf pushd pwd read readarray readonly return set shift shopt source suspend ' +
    'test times trap true type typeset ulimit umask unalias unset wait'
  ).split(' '),
);

/** What running `name` finds through `path`: a system program, another file, or nothing we can know. */
export type PathHit =
  | { kind: 'system' }
  | { kind: 'other'; file: string }
  | { kind: 'uncertain'; reason: string };

function isFile(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() === true;
}

/**
 * Searches `$PATH` as bash does (entries in order, empty = `.`, relative ones against the cwd): the first
 * entry holding `name` decides. `writtenInto(dir)`: whether this line may create files there first.
 */
export function lookupInPath(
  name: string,
  path: string,
  cwd: string | null,
  writtenInto: (dir: string) => boolean,
): PathHit {
  for (const raw of path.split(':')) {
    const entry = raw === '' ? '.' : raw;
    if (SYSTEM_DIRS.has(entry)) {
      if (isFile(join(entry, name))) return { kind: 'system' };
      continue;
    }
    if (!isAbsolute(entry) && cwd === null)
      return { kind: 'uncertain', reason: `$PATH entry ${entry} is relative to an unknown directory` };
    const dir = isAbsolute(entry) ? entry : join(cwd!, entry);
    const file = join(dir, name);
    if (isFile(file)) {
      // A venv's `python` is a link to the system one: the same program the table describes.
      const real = realpathSync.native(file);
      if (SYSTEM_DIRS.has(dirname(real))) return { kind: 'system' };
      return { kind: 'other', file };
    }
    // Anyone may put a program into a world-writable directory (/tmp) between this check and the run.
    const mode = statSync(dir, { throwIfNoEntry: false })?.mode;
    if (mode !== undefined && (mode & 0o002) !== 0)
      return { kind: 'uncertain', reason: `$PATH entry ${entry} is writable by anyone` };
    if (writtenInto(dir))
      return { kind: 'uncertain', reason: `this line may create ${name} in $PATH entry ${entry} first` };
  }
  return { kind: 'system' };
}
