// find's expression language as data: GNU findutils 4.9.0 (`find --help`, find(1)). A primary not listed here
// is uncertain — it may be an action that opens, writes or runs something.

/** Primaries without an argument (tests, actions, options, operators written as words). */
export const FIND_NOARG: ReadonlySet<string> = new Set([
  '-daystart',
  '-follow',
  '-nowarn',
  '-warn',
  '-depth',
  '-d',
  '-mount',
  '-xdev',
  '-noleaf',
  '-ignore_readdir_race',
  '-noignore_readdir_race',
  '-empty',
  '-false',
  '-true',
  '-nouser',
  '-nogroup',
  '-readable',
  '-writable',
  '-executable',
  '-print',
  '-print0',
  '-ls',
  '-prune',
  '-quit',
  '-delete',
  '-not',
  '-a',
  '-and',
  '-o',
  '-or',
  '-help',
  '--help',
  '-version',
  '--version',
]);

/** Primaries whose one argument is a pattern, number or format, never a path. */
export const FIND_ARG: ReadonlySet<string> = new Set([
  '-regextype',
  '-maxdepth',
  '-mindepth',
  '-amin',
  '-atime',
  '-cmin',
  '-ctime',
  '-mmin',
  '-mtime',
  '-used',
  '-context',
  '-fstype',
  '-gid',
  '-uid',
  '-group',
  '-user',
  '-ilname',
  '-lname',
  '-iname',
  '-name',
  '-inum',
  '-ipath',
  '-path',
  '-iwholename',
  '-wholename',
  '-iregex',
  '-regex',
  '-links',
  '-perm',
  '-size',
  '-type',
  '-xtype',
  '-printf',
]);

/** Primaries whose argument is a file find only stats (its times, its inode). */
export const FIND_STAT: ReadonlySet<string> = new Set(['-anewer', '-cnewer', '-newer', '-samefile']);

/** `-newerXY REF`: X and Y from `aBcmt`; REF is a file unless Y is `t` (then a date). */
export const FIND_NEWER_XY = /^-newer([aBcm])([aBcmt])$/;

/** Primaries that write their first argument (`-fprintf FILE FORMAT` has a second one). */
export const FIND_WRITE: ReadonlySet<string> = new Set(['-fprint', '-fprint0', '-fls', '-fprintf']);

/** Primaries that run a command up to `;` (or `{} +`). */
export const FIND_EXEC: ReadonlySet<string> = new Set(['-exec', '-execdir', '-ok', '-okdir']);
