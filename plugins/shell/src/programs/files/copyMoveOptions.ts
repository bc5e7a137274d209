import type { ArgSpec } from '../argv.js';

// Option tables of cp, mv, install, ln (coreutils 9.1).
// Generated from each program's `--help` on Debian 12 and checked against the binary: every letter a-z A-Z 0-9
// was run as `PROG -X </dev/null` to see whether getopt rejects it, wants an argument, or takes it as a flag;
// every long name as `PROG --name` the same way. Long options whose argument is optional (`--color[=WHEN]`)
// are flags: getopt only takes their value attached with `=`, which `parseArgs` then ignores.

/** `cp`: GNU coreutils 9.1 --help, arities probed. */
export const CP: ArgSpec = {
  short: 'tS',
  shortFlags: 'abdfilnprsuvxHLPRTZ',
  long: ['no-preserve', 'sparse', 'suffix', 'target-directory'],
  flags: [
    'archive',
    'attributes-only',
    'backup',
    'context',
    'copy-contents',
    'dereference',
    'force',
    'help',
    'interactive',
    'link',
    'no-clobber',
    'no-dereference',
    'no-target-directory',
    'one-file-system',
    'parents',
    'preserve',
    'recursive',
    'reflink',
    'remove-destination',
    'strip-trailing-slashes',
    'symbolic-link',
    'update',
    'verbose',
    'version',
  ],
};

/** `mv`: GNU coreutils 9.1 --help, arities probed. */
export const MV: ArgSpec = {
  short: 'tS',
  shortFlags: 'bfinuvTZ',
  long: ['suffix', 'target-directory'],
  flags: [
    'backup',
    'context',
    'force',
    'help',
    'interactive',
    'no-clobber',
    'no-target-directory',
    'strip-trailing-slashes',
    'update',
    'verbose',
    'version',
  ],
};

/** `install`: GNU coreutils 9.1 --help, arities probed. */
export const INSTALL: ArgSpec = {
  short: 'gmotS',
  shortFlags: 'bcdpsvCDTZ',
  long: ['group', 'mode', 'owner', 'strip-program', 'suffix', 'target-directory'],
  flags: [
    'backup',
    'compare',
    'context',
    'directory',
    'help',
    'no-target-directory',
    'preserve-context',
    'preserve-timestamps',
    'strip',
    'verbose',
    'version',
  ],
};

/** `ln`: GNU coreutils 9.1 --help, arities probed. */
export const LN: ArgSpec = {
  short: 'tS',
  shortFlags: 'bdfinrsvFLPT',
  long: ['suffix', 'target-directory'],
  flags: [
    'backup',
    'directory',
    'force',
    'help',
    'interactive',
    'logical',
    'no-dereference',
    'no-target-directory',
    'physical',
    'relative',
    'symbolic',
    'verbose',
    'version',
  ],
};

/**
 * `scp`: OpenSSH 9.2 usage line (`scp -h`), arities probed. `-f`/`-t` are the remote end's modes (they write
 * what stdin sends) and `-M`, `-1`, `-2` undocumented: left out, so they are uncertain.
 */
export const SCP: ArgSpec = {
  short: 'cDFiJloPSX',
  shortFlags: '346ABCOpqRrsTv',
};
