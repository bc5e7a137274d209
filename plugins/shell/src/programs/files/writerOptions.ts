import type { ArgSpec } from '../argv.js';

// Option tables of programs that create, change or delete files (coreutils 9.1).
// Generated from each program's `--help` on Debian 12 and checked against the binary: every letter a-z A-Z 0-9
// was run as `PROG -X </dev/null` to see whether getopt rejects it, wants an argument, or takes it as a flag;
// every long name as `PROG --name` the same way. Long options whose argument is optional (`--color[=WHEN]`)
// are flags: getopt only takes their value attached with `=`, which `parseArgs` then ignores.

/** `rm`: GNU coreutils 9.1 --help, arities probed. */
export const RM: ArgSpec = {
  shortFlags: 'dfirvIR',
  flags: [
    'dir',
    'force',
    'help',
    'interactive',
    'no-preserve-root',
    'one-file-system',
    'preserve-root',
    'recursive',
    'verbose',
    'version',
  ],
};

/** `rmdir`: GNU coreutils 9.1 --help, arities probed. */
export const RMDIR: ArgSpec = {
  shortFlags: 'pv',
  flags: ['help', 'ignore-fail-on-non-empty', 'parents', 'verbose', 'version'],
};

/** `unlink`: GNU coreutils 9.1 --help, arities probed. */
export const UNLINK: ArgSpec = { shortFlags: '', flags: ['help', 'version'] };

/** `shred`: GNU coreutils 9.1 --help, arities probed. */
export const SHRED: ArgSpec = {
  short: 'ns',
  shortFlags: 'fuvxz',
  long: ['iterations', 'random-source', 'size'],
  flags: ['exact', 'force', 'help', 'remove', 'verbose', 'version', 'zero'],
};

/** `mkdir`: GNU coreutils 9.1 --help, arities probed. */
export const MKDIR: ArgSpec = {
  short: 'm',
  shortFlags: 'pvZ',
  long: ['mode'],
  flags: ['context', 'help', 'parents', 'verbose', 'version'],
};

/** `mkfifo`: GNU coreutils 9.1 --help, arities probed. */
export const MKFIFO: ArgSpec = {
  short: 'm',
  shortFlags: 'Z',
  long: ['mode'],
  flags: ['context', 'help', 'version'],
};

/** `mknod`: GNU coreutils 9.1 --help, arities probed. */
export const MKNOD: ArgSpec = {
  short: 'm',
  shortFlags: 'Z',
  long: ['mode'],
  flags: ['context', 'help', 'version'],
};

/** `touch`: GNU coreutils 9.1 --help, arities probed. */
export const TOUCH: ArgSpec = {
  short: 'drt',
  shortFlags: 'acfhm',
  long: ['date', 'reference', 'time'],
  flags: ['help', 'no-create', 'no-dereference', 'version'],
};

/** `truncate`: GNU coreutils 9.1 --help, arities probed. */
export const TRUNCATE: ArgSpec = {
  short: 'rs',
  shortFlags: 'co',
  long: ['reference', 'size'],
  flags: ['help', 'io-blocks', 'no-create', 'version'],
};

/** `chmod`: GNU coreutils 9.1 --help, arities probed. */
export const CHMOD: ArgSpec = {
  // getopt also takes mode letters (`-w`, `-x`) as options: the chmod handler reads those as the mode first.
  shortFlags: 'cfvR',
  long: ['reference'],
  flags: [
    'changes',
    'help',
    'no-preserve-root',
    'preserve-root',
    'quiet',
    'recursive',
    'silent',
    'verbose',
    'version',
  ],
};

/** `chown`: GNU coreutils 9.1 --help, arities probed. */
export const CHOWN: ArgSpec = {
  shortFlags: 'cfhvHLPR',
  long: ['from', 'reference'],
  flags: [
    'changes',
    'dereference',
    'help',
    'no-dereference',
    'no-preserve-root',
    'preserve-root',
    'quiet',
    'recursive',
    'silent',
    'verbose',
    'version',
  ],
};

/** `chgrp`: GNU coreutils 9.1 --help, arities probed. */
export const CHGRP: ArgSpec = {
  shortFlags: 'cfhvHLPR',
  long: ['reference'],
  flags: [
    'changes',
    'dereference',
    'help',
    'no-dereference',
    'no-preserve-root',
    'preserve-root',
    'quiet',
    'recursive',
    'silent',
    'verbose',
    'version',
  ],
};
