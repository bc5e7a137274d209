import type { ArgSpec } from '../argv.js';

// Option tables of text tools that write files: tee and sort/shuf/uniq/split/csplit (coreutils 9.1).
// Generated from each program's `--help` on Debian 12 and checked against the binary: every letter a-z A-Z 0-9
// was run as `PROG -X </dev/null` to see whether getopt rejects it, wants an argument, or takes it as a flag;
// every long name as `PROG --name` the same way. Long options whose argument is optional (`--color[=WHEN]`)
// are flags: getopt only takes their value attached with `=`, which `parseArgs` then ignores.

/** `tee`: GNU coreutils 9.1 --help, arities probed. */
export const TEE: ArgSpec = {
  shortFlags: 'aip',
  flags: ['append', 'help', 'ignore-interrupts', 'output-error', 'version'],
};

/** `sort`: GNU coreutils 9.1 --help, arities probed. */
export const SORT: ArgSpec = {
  short: 'kotyST',
  shortFlags: 'bcdfghimnrsuzCMRV',
  long: [
    'batch-size',
    'buffer-size',
    'compress-program',
    'field-separator',
    'files0-from',
    'key',
    'output',
    'parallel',
    'random-source',
    'sort',
    'temporary-directory',
  ],
  flags: [
    'check',
    'debug',
    'dictionary-order',
    'general-numeric-sort',
    'help',
    'human-numeric-sort',
    'ignore-case',
    'ignore-leading-blanks',
    'ignore-nonprinting',
    'merge',
    'month-sort',
    'numeric-sort',
    'random-sort',
    'reverse',
    'stable',
    'unique',
    'version',
    'version-sort',
    'zero-terminated',
  ],
};

/** `shuf`: GNU coreutils 9.1 --help, arities probed. */
export const SHUF: ArgSpec = {
  short: 'ino',
  shortFlags: 'erz',
  long: ['head-count', 'input-range', 'output', 'random-source'],
  flags: ['echo', 'help', 'repeat', 'version', 'zero-terminated'],
};

/** `uniq`: GNU coreutils 9.1 --help, arities probed. */
export const UNIQ: ArgSpec = {
  short: 'fsw',
  shortFlags: 'cdiuzD',
  long: ['check-chars', 'skip-chars', 'skip-fields'],
  flags: [
    'all-repeated',
    'count',
    'group',
    'help',
    'ignore-case',
    'repeated',
    'unique',
    'version',
    'zero-terminated',
  ],
  numeric: true,
};

/** `split`: GNU coreutils 9.1 --help, arities probed. */
export const SPLIT: ArgSpec = {
  short: 'ablntC',
  shortFlags: 'deux',
  long: [
    'additional-suffix',
    'bytes',
    'filter',
    'line-bytes',
    'lines',
    'number',
    'separator',
    'suffix-length',
  ],
  flags: [
    'elide-empty-files',
    'help',
    'hex-suffixes',
    'numeric-suffixes',
    'unbuffered',
    'verbose',
    'version',
  ],
  numeric: true,
};

/** `csplit`: GNU coreutils 9.1 --help, arities probed. */
export const CSPLIT: ArgSpec = {
  short: 'bfn',
  shortFlags: 'kqsz',
  long: ['digits', 'prefix', 'suffix-format'],
  flags: ['elide-empty-files', 'help', 'keep-files', 'quiet', 'silent', 'suppress-matched', 'version'],
};
