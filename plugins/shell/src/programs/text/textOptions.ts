import type { ArgSpec } from '../argv.js';

// Option tables of programs that read file contents (coreutils 9.1, grep 3.8, diffutils 3.8, glibc 2.36).
// Generated from each program's `--help` on Debian 12 and checked against the binary: every letter a-z A-Z 0-9
// was run as `PROG -X </dev/null` to see whether getopt rejects it, wants an argument, or takes it as a flag;
// every long name as `PROG --name` the same way. Long options whose argument is optional (`--color[=WHEN]`)
// are flags: getopt only takes their value attached with `=`, which `parseArgs` then ignores.

/** `cat`: GNU coreutils 9.1 --help, arities probed. */
export const CAT: ArgSpec = {
  shortFlags: 'benstuvAET',
  flags: [
    'help',
    'number',
    'number-nonblank',
    'show-all',
    'show-ends',
    'show-nonprinting',
    'show-tabs',
    'squeeze-blank',
    'version',
  ],
};

/** `tac`: GNU coreutils 9.1 --help, arities probed. */
export const TAC: ArgSpec = {
  short: 's',
  shortFlags: 'br',
  long: ['separator'],
  flags: ['before', 'help', 'regex', 'version'],
};

/** `nl`: GNU coreutils 9.1 --help, arities probed. */
export const NL: ArgSpec = {
  short: 'bdfhilnsvw',
  shortFlags: 'p',
  long: [
    'body-numbering',
    'footer-numbering',
    'header-numbering',
    'join-blank-lines',
    'line-increment',
    'number-format',
    'number-separator',
    'number-width',
    'section-delimiter',
    'starting-line-number',
  ],
  flags: ['help', 'no-renumber', 'version'],
};

/** `head`: GNU coreutils 9.1 --help, arities probed. */
export const HEAD: ArgSpec = {
  short: 'cn',
  shortFlags: 'qvz',
  long: ['bytes', 'lines'],
  flags: ['help', 'quiet', 'silent', 'verbose', 'version', 'zero-terminated'],
  numeric: true,
};

/** `tail`: GNU coreutils 9.1 --help, arities probed. */
export const TAIL: ArgSpec = {
  short: 'cns',
  shortFlags: 'bflqvzF',
  long: ['bytes', 'lines', 'max-unchanged-stats', 'pid', 'sleep-interval'],
  flags: ['follow', 'help', 'quiet', 'retry', 'silent', 'verbose', 'version', 'zero-terminated'],
  numeric: true,
};

/** `wc`: GNU coreutils 9.1 --help, arities probed. */
export const WC: ArgSpec = {
  shortFlags: 'clmwL',
  long: ['files0-from'],
  flags: ['bytes', 'chars', 'help', 'lines', 'max-line-length', 'version', 'words'],
};

/** `od`: GNU coreutils 9.1 --help, arities probed. */
export const OD: ArgSpec = {
  short: 'jtANS',
  shortFlags: 'abcdefhilosvxBDFHILOX',
  optionalShort: 'w',
  long: ['address-radix', 'endian', 'format', 'read-bytes', 'skip-bytes'],
  flags: ['help', 'output-duplicates', 'strings', 'traditional', 'version', 'width'],
};

/** `cut`: GNU coreutils 9.1 --help, arities probed. */
export const CUT: ArgSpec = {
  short: 'bcdf',
  shortFlags: 'nsz',
  long: ['bytes', 'characters', 'delimiter', 'fields', 'output-delimiter'],
  flags: ['complement', 'help', 'only-delimited', 'version', 'zero-terminated'],
};

/** `paste`: GNU coreutils 9.1 --help, arities probed. */
export const PASTE: ArgSpec = {
  short: 'd',
  shortFlags: 'sz',
  long: ['delimiters'],
  flags: ['help', 'serial', 'version', 'zero-terminated'],
};

/** `comm`: GNU coreutils 9.1 --help, arities probed. */
export const COMM: ArgSpec = {
  shortFlags: 'z123',
  long: ['output-delimiter'],
  flags: ['check-order', 'help', 'nocheck-order', 'total', 'version', 'zero-terminated'],
};

/** `join`: GNU coreutils 9.1 --help, arities probed. */
export const JOIN: ArgSpec = {
  short: 'aejotv12',
  shortFlags: 'iz',
  flags: ['check-order', 'header', 'help', 'ignore-case', 'nocheck-order', 'version', 'zero-terminated'],
};

/** `fold`: GNU coreutils 9.1 --help, arities probed. */
export const FOLD: ArgSpec = {
  short: 'w',
  shortFlags: 'bs',
  long: ['width'],
  flags: ['bytes', 'help', 'spaces', 'version'],
  numeric: true,
};

/** `fmt`: GNU coreutils 9.1 --help, arities probed. */
export const FMT: ArgSpec = {
  short: 'gpw',
  shortFlags: 'cstu',
  long: ['goal', 'prefix', 'width'],
  flags: ['crown-margin', 'help', 'split-only', 'tagged-paragraph', 'uniform-spacing', 'version'],
  numeric: true,
};

/** `expand`: GNU coreutils 9.1 --help, arities probed. */
export const EXPAND: ArgSpec = {
  short: 't',
  shortFlags: 'i',
  long: ['tabs'],
  flags: ['help', 'initial', 'version'],
  numeric: true,
};

/** `unexpand`: GNU coreutils 9.1 --help, arities probed. */
export const UNEXPAND: ArgSpec = {
  short: 't',
  shortFlags: 'a',
  long: ['tabs'],
  flags: ['all', 'first-only', 'help', 'version'],
  numeric: true,
};

/** `tr`: GNU coreutils 9.1 --help, arities probed. */
export const TR: ArgSpec = {
  shortFlags: 'cdstAC',
  flags: ['complement', 'delete', 'help', 'squeeze-repeats', 'truncate-set1', 'version'],
};

/** `base64`: GNU coreutils 9.1 --help, arities probed. */
export const BASE64: ArgSpec = {
  short: 'w',
  shortFlags: 'di',
  long: ['wrap'],
  flags: ['decode', 'help', 'ignore-garbage', 'version'],
};

/** `base32`: GNU coreutils 9.1 --help, arities probed. */
export const BASE32: ArgSpec = {
  short: 'w',
  shortFlags: 'di',
  long: ['wrap'],
  flags: ['decode', 'help', 'ignore-garbage', 'version'],
};

/** `grep`: GNU grep 3.8 --help, arities probed. */
export const GREP: ArgSpec = {
  short: 'defmABCDX',
  shortFlags: 'abchilnoqrsuvwxyzEFGHILPRTUVZ',
  long: [
    'after-context',
    'before-context',
    'binary-files',
    'context',
    'devices',
    'directories',
    'exclude',
    'exclude-dir',
    'exclude-from',
    'file',
    'group-separator',
    'include',
    'label',
    'max-count',
    'regexp',
  ],
  flags: [
    'basic-regexp',
    'binary',
    'byte-offset',
    'color',
    'colour',
    'count',
    'dereference-recursive',
    'extended-regexp',
    'files-with-matches',
    'files-without-match',
    'fixed-strings',
    'help',
    'ignore-case',
    'initial-tab',
    'invert-match',
    'line-buffered',
    'line-number',
    'line-regexp',
    'no-filename',
    'no-group-separator',
    'no-ignore-case',
    'no-messages',
    'null',
    'null-data',
    'only-matching',
    'perl-regexp',
    'quiet',
    'recursive',
    'silent',
    'text',
    'version',
    'with-filename',
    'word-regexp',
  ],
  numeric: true,
};

/** `diff`: GNU diffutils 3.8 --help, arities probed. */
export const DIFF: ArgSpec = {
  short: 'xCDFILSUWX',
  shortFlags: 'abcdefhilnpqrstuvwyBEHNPTZ',
  long: [
    'exclude',
    'exclude-from',
    'from-file',
    'horizon-lines',
    'ifdef',
    'ignore-matching-lines',
    'label',
    'line-format',
    'palette',
    'show-function-line',
    'starting-file',
    'tabsize',
    'to-file',
    'width',
  ],
  flags: [
    'brief',
    'color',
    'context',
    'ed',
    'expand-tabs',
    'help',
    'ignore-all-space',
    'ignore-blank-lines',
    'ignore-case',
    'ignore-file-name-case',
    'ignore-space-change',
    'ignore-tab-expansion',
    'ignore-trailing-space',
    'initial-tab',
    'left-column',
    'minimal',
    'new-file',
    'no-dereference',
    'no-ignore-file-name-case',
    'normal',
    'paginate',
    'rcs',
    'recursive',
    'report-identical-files',
    'show-c-function',
    'side-by-side',
    'speed-large-files',
    'strip-trailing-cr',
    'suppress-blank-empty',
    'suppress-common-lines',
    'text',
    'unidirectional-new-file',
    'unified',
    'version',
  ],
  numeric: true,
};

/** `cmp`: GNU diffutils 3.8 --help, arities probed. */
export const CMP: ArgSpec = {
  short: 'in',
  shortFlags: 'bclsv',
  long: ['bytes', 'ignore-initial'],
  flags: ['help', 'print-bytes', 'quiet', 'silent', 'verbose', 'version'],
};

/** `iconv`: glibc 2.36 iconv --help, arities probed. */
export const ICONV: ArgSpec = {
  short: 'fot',
  shortFlags: 'clsV',
  long: ['from-code', 'output', 'to-code'],
  flags: ['help', 'list', 'silent', 'usage', 'verbose', 'version'],
};

/** `hexdump --help`, util-linux 2.38 (arities probed). `-L` takes its mode attached only (`--color[=MODE]`). */
export const HEXDUMP: ArgSpec = {
  short: 'efns',
  shortFlags: 'bcdhovxCV',
  optionalShort: 'L',
  long: ['format', 'format-file', 'length', 'skip'],
  flags: [
    'one-byte-octal',
    'one-byte-char',
    'canonical',
    'two-bytes-decimal',
    'two-bytes-octal',
    'two-bytes-hex',
    'color',
    'no-squeezing',
    'help',
    'version',
  ],
};

/** `column --help`, util-linux 2.38 (arities probed). */
export const COLUMN: ArgSpec = {
  short: 'cilnoprsEHNORTW',
  shortFlags: 'dehtxJLV',
  long: [
    'table-name',
    'table-order',
    'table-columns',
    'table-columns-limit',
    'table-noextreme',
    'table-hide',
    'table-right',
    'table-truncate',
    'table-wrap',
    'tree',
    'tree-id',
    'tree-parent',
    'output-width',
    'output-separator',
    'separator',
  ],
  flags: [
    'table',
    'table-noheadings',
    'table-header-repeat',
    'keep-empty-lines',
    'json',
    'fillrows',
    'help',
    'version',
  ],
};

/** `rev --help`, util-linux 2.38. */
export const REV: ArgSpec = { shortFlags: 'hV', flags: ['help', 'version'] };

/** `more --help`, util-linux 2.38 (arities probed; `-NUM` is `--lines NUM`). */
export const MORE: ArgSpec = {
  short: 'n',
  shortFlags: 'cdefhlpsuV',
  long: ['lines'],
  flags: [
    'silent',
    'logical',
    'no-pause',
    'print-over',
    'clean-print',
    'exit-on-eof',
    'squeeze',
    'plain',
    'help',
    'version',
  ],
  numeric: true,
};

/** `strings --help`, GNU binutils 2.40 (arities probed; `-NUM` is `-n NUM`). */
export const STRINGS: ArgSpec = {
  short: 'enstTU',
  shortFlags: 'adfhovwHV',
  long: ['bytes', 'radix', 'target', 'encoding', 'unicode', 'output-separator'],
  flags: ['all', 'data', 'print-file-name', 'include-all-whitespace', 'help', 'version'],
  numeric: true,
};

/** `look --help`, util-linux 2.38 (arities probed). */
export const LOOK: ArgSpec = {
  short: 't',
  shortFlags: 'adfhV',
  long: ['terminate'],
  flags: ['alternative', 'alphanum', 'ignore-case', 'help', 'version'],
};

/** `less --help`, less 590 (options whose value is optional are written `-x [N]`: they take the next word). */
export const LESS: ArgSpec = {
  short: 'bDhjkoOpPtTxyz"#',
  shortFlags: '?aABcdeEfFgGiIJKLmMnNqQrRsSuUVwWX~',
  long: [
    'buffers',
    'color',
    'max-back-scroll',
    'jump-target',
    'lesskey-file',
    'log-file',
    'LOG-FILE',
    'pattern',
    'prompt',
    'tag',
    'tag-file',
    'tabs',
    'max-forw-scroll',
    'window',
    'quotes',
    'shift',
    'line-num-width',
    'rscroll',
    'status-col-width',
    'wheel-lines',
  ],
  flags: [
    'help',
    'search-skip-screen',
    'SEARCH-SKIP-SCREEN',
    'auto-buffers',
    'clear-screen',
    'dumb',
    'quit-at-eof',
    'QUIT-AT-EOF',
    'force',
    'quit-if-one-screen',
    'hilite-search',
    'HILITE-SEARCH',
    'ignore-case',
    'IGNORE-CASE',
    'status-column',
    'quit-on-intr',
    'no-lessopen',
    'long-prompt',
    'LONG-PROMPT',
    'line-numbers',
    'LINE-NUMBERS',
    'quiet',
    'QUIET',
    'silent',
    'SILENT',
    'raw-control-chars',
    'RAW-CONTROL-CHARS',
    'squeeze-blank-lines',
    'chop-long-lines',
    'underline-special',
    'UNDERLINE-SPECIAL',
    'version',
    'hilite-unread',
    'HILITE-UNREAD',
    'no-init',
    'tilde',
    'file-size',
    'follow-name',
    'incsearch',
    'mouse',
    'no-keypad',
    'no-histdups',
    'save-marks',
    'use-backslash',
    'use-color',
  ],
};
