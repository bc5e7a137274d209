import type { ArgSpec } from '../argv.js';

// Option tables of checksum programs (coreutils 9.1).
// Generated from each program's `--help` on Debian 12 and checked against the binary: every letter a-z A-Z 0-9
// was run as `PROG -X </dev/null` to see whether getopt rejects it, wants an argument, or takes it as a flag;
// every long name as `PROG --name` the same way. Long options whose argument is optional (`--color[=WHEN]`)
// are flags: getopt only takes their value attached with `=`, which `parseArgs` then ignores.

/** `md5sum`: GNU coreutils 9.1 --help, arities probed. */
export const MD5SUM: ArgSpec = {
  shortFlags: 'bctwz',
  flags: [
    'binary',
    'check',
    'help',
    'ignore-missing',
    'quiet',
    'status',
    'strict',
    'tag',
    'text',
    'version',
    'warn',
    'zero',
  ],
};

/** `sha1sum`: GNU coreutils 9.1 --help, arities probed. */
export const SHA1SUM: ArgSpec = {
  shortFlags: 'bctwz',
  flags: [
    'binary',
    'check',
    'help',
    'ignore-missing',
    'quiet',
    'status',
    'strict',
    'tag',
    'text',
    'version',
    'warn',
    'zero',
  ],
};

/** `sha224sum`: GNU coreutils 9.1 --help, arities probed. */
export const SHA224SUM: ArgSpec = {
  shortFlags: 'bctwz',
  flags: [
    'binary',
    'check',
    'help',
    'ignore-missing',
    'quiet',
    'status',
    'strict',
    'tag',
    'text',
    'version',
    'warn',
    'zero',
  ],
};

/** `sha256sum`: GNU coreutils 9.1 --help, arities probed. */
export const SHA256SUM: ArgSpec = {
  shortFlags: 'bctwz',
  flags: [
    'binary',
    'check',
    'help',
    'ignore-missing',
    'quiet',
    'status',
    'strict',
    'tag',
    'text',
    'version',
    'warn',
    'zero',
  ],
};

/** `sha384sum`: GNU coreutils 9.1 --help, arities probed. */
export const SHA384SUM: ArgSpec = {
  shortFlags: 'bctwz',
  flags: [
    'binary',
    'check',
    'help',
    'ignore-missing',
    'quiet',
    'status',
    'strict',
    'tag',
    'text',
    'version',
    'warn',
    'zero',
  ],
};

/** `sha512sum`: GNU coreutils 9.1 --help, arities probed. */
export const SHA512SUM: ArgSpec = {
  shortFlags: 'bctwz',
  flags: [
    'binary',
    'check',
    'help',
    'ignore-missing',
    'quiet',
    'status',
    'strict',
    'tag',
    'text',
    'version',
    'warn',
    'zero',
  ],
};

/** `b2sum`: GNU coreutils 9.1 --help, arities probed. */
export const B2SUM: ArgSpec = {
  short: 'l',
  shortFlags: 'bctwz',
  long: ['length'],
  flags: [
    'binary',
    'check',
    'help',
    'ignore-missing',
    'quiet',
    'status',
    'strict',
    'tag',
    'text',
    'version',
    'warn',
    'zero',
  ],
};

/** `cksum`: GNU coreutils 9.1 --help, arities probed. */
export const CKSUM: ArgSpec = {
  short: 'al',
  shortFlags: 'bctwz',
  long: ['algorithm', 'length'],
  flags: [
    'check',
    'debug',
    'help',
    'ignore-missing',
    'quiet',
    'status',
    'strict',
    'tag',
    'untagged',
    'version',
    'warn',
    'zero',
  ],
};

/** `sum`: GNU coreutils 9.1 --help, arities probed. */
export const SUM: ArgSpec = { shortFlags: 'rs', flags: ['help', 'sysv', 'version'] };

/** `shasum --help`, Perl Digest::SHA 6.02 (its own Getopt::Long: bundled short flags, `-a ALG`). */
export const SHASUM: ArgSpec = {
  short: 'a',
  shortFlags: 'bctU0qswhv',
  long: ['algorithm'],
  flags: [
    'binary',
    'check',
    'tag',
    'text',
    'UNIVERSAL',
    '01',
    'ignore-missing',
    'quiet',
    'status',
    'strict',
    'warn',
    'help',
    'version',
  ],
};
