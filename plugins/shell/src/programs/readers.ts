import type { CommandHandler } from '../effects/extractTypes.js';
import { has, parseArgs } from './argv.js';
import { simple } from './spec.js';

// Commands whose operands are read. Option tables list the options that take an argument (so the argument is
// not mistaken for an operand) and the ones whose argument is itself a path.

const R = { '--files0-from': 'read' } as const;

/** md5sum/sha*sum: `-c LIST` reads the files named inside LIST, which we cannot see. */
const checksum: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, {
    flags: ['check', 'binary', 'text', 'tag', 'zero', 'quiet', 'status', 'strict', 'warn'],
  });
  const check = has(p, '-c', '--check');
  for (const f of p.operands) cx.read(f);
  if (check) cx.uncertain(`${cx.name} -c reads the files named in its list`, 'read');
};

export const readers: Record<string, CommandHandler> = {
  cat: simple({}),
  tac: simple({ short: 's', long: ['separator'] }),
  nl: simple({ short: 'bdfhilnpsvw', long: ['body-numbering', 'section-delimiter', 'number-separator'] }),
  head: simple({ short: 'nc', long: ['lines', 'bytes'] }),
  tail: simple({ short: 'ncs', long: ['lines', 'bytes', 'pid', 'sleep-interval', 'max-unchanged-stats'] }),
  less: simple({
    short: 'bhjkoOpPtTxyz#',
    long: ['log-file', 'LOG-FILE', 'tag', 'tag-file', 'pattern', 'prompt'],
    pathOpts: { '-o': 'write', '-O': 'write', '--log-file': 'write', '--LOG-FILE': 'write', '-T': 'read' },
  }),
  more: simple({ short: 'n' }),
  wc: simple({ long: ['files0-from'], pathOpts: R }),
  file: simple({
    short: 'mfeFP',
    long: ['magic-file', 'files-from', 'separator', 'exclude'],
    pathOpts: { '-m': 'read', '-f': 'read', '--files-from': 'read', '--magic-file': 'read' },
  }),
  stat: simple({ short: 'c', long: ['format', 'printf'] }),
  md5sum: checksum,
  sha1sum: checksum,
  sha224sum: checksum,
  sha256sum: checksum,
  sha384sum: checksum,
  sha512sum: checksum,
  b2sum: simple({ short: 'l', long: ['length'] }),
  cksum: simple({ short: 'al', long: ['algorithm', 'length'] }),
  sum: checksum,
  od: simple({
    short: 'AjNStw',
    long: ['address-radix', 'skip-bytes', 'read-bytes', 'strings', 'format', 'width'],
  }),
  hexdump: simple({ short: 'efns', pathOpts: { '-f': 'read' } }),
  hd: simple({ short: 'efns', pathOpts: { '-f': 'read' } }),
  strings: simple({ short: 'ntTe', long: ['bytes', 'radix', 'target', 'encoding', 'output-separator'] }),
  cut: simple({ short: 'bcdf', long: ['bytes', 'characters', 'delimiter', 'fields', 'output-delimiter'] }),
  paste: simple({ short: 'd', long: ['delimiters'] }),
  comm: simple({ long: ['output-delimiter'] }),
  join: simple({ short: 'aejot12', long: [] }),
  cmp: simple({ short: 'inI', long: ['ignore-initial', 'bytes'] }),
  fold: simple({ short: 'w', long: ['width'] }),
  fmt: simple({ short: 'pw', long: ['prefix', 'width', 'goal'] }),
  expand: simple({ short: 't', long: ['tabs'] }),
  unexpand: simple({ short: 't', long: ['tabs'] }),
  column: simple({
    short: 'csoNRHEWOl',
    long: [
      'separator',
      'output-separator',
      'table-columns',
      'table-right',
      'table-hide',
      'table-wrap',
      'table-order',
      'table-name',
      'output-width',
    ],
  }),
  rev: simple({}),
  tr: simple({ operands: 'none' }),
  readlink: simple({}),
  realpath: simple({
    long: ['relative-to', 'relative-base'],
    pathOpts: { '--relative-to': 'read', '--relative-base': 'read' },
  }),
  ls: simple({
    short: 'ITw',
    long: [
      'ignore',
      'hide',
      'width',
      'tabsize',
      'format',
      'sort',
      'time',
      'time-style',
      'quoting-style',
      'color',
      'indicator-style',
      'block-size',
    ],
    flags: ['recursive'],
    recursive: ['-R', '--recursive'],
    defaultOperand: '.',
  }),
  dir: simple({ recursive: ['-R', '--recursive'], defaultOperand: '.' }),
  du: simple({
    short: 'BdtX',
    long: [
      'block-size',
      'max-depth',
      'threshold',
      'exclude-from',
      'exclude',
      'time',
      'time-style',
      'files0-from',
    ],
    subtree: true,
    defaultOperand: '.',
    followsLinks: ['-L', '--dereference'],
    pathOpts: { '-X': 'read', '--exclude-from': 'read', '--files0-from': 'read' },
  }),
  tree: simple({
    short: 'LPIoH',
    long: ['filelimit', 'timefmt', 'charset', 'sort'],
    subtree: true,
    defaultOperand: '.',
    pathOpts: { '-o': 'write' },
  }),
  diff: simple({
    short: 'CUDFILSxX',
    long: [
      'context',
      'unified',
      'ifdef',
      'show-function-line',
      'label',
      'starting-file',
      'exclude',
      'exclude-from',
      'from-file',
      'to-file',
      'line-format',
      'old-line-format',
      'new-line-format',
      'unchanged-line-format',
      'horizon-lines',
      'color',
      'palette',
      'width',
      'tabsize',
      'ignore-matching-lines',
    ],
    flags: ['recursive'],
    recursive: ['-r', '--recursive'],
    pathOpts: { '-X': 'read', '--exclude-from': 'read', '--from-file': 'read', '--to-file': 'read' },
  }),
  grep: simple({
    short: 'efmABCdD',
    long: [
      'regexp',
      'file',
      'max-count',
      'label',
      'after-context',
      'before-context',
      'context',
      'include',
      'exclude',
      'exclude-dir',
      'exclude-from',
      'color',
      'colour',
      'binary-files',
      'devices',
      'directories',
      'group-separator',
    ],
    flags: ['recursive', 'dereference-recursive'],
    skip: 1,
    skipUnless: ['-e', '-f', '--regexp', '--file'],
    recursive: ['-r', '-R', '--recursive', '--dereference-recursive'],
    defaultOperand: '.',
    defaultOnlyRecursive: true,
    followsLinks: ['-R', '--dereference-recursive'],
    pathOpts: { '-f': 'read', '--file': 'read', '--exclude-from': 'read' },
  }),
  rg: simple({
    short: 'efgtTmABCMjE',
    long: [
      'regexp',
      'file',
      'glob',
      'iglob',
      'type',
      'type-not',
      'max-count',
      'after-context',
      'before-context',
      'context',
      'max-columns',
      'threads',
      'encoding',
      'max-depth',
      'ignore-file',
      'type-add',
      'sort',
      'sortr',
      'color',
      'colors',
      'replace',
      'pre',
      'pre-glob',
      'path-separator',
      'max-filesize',
      'dfa-size-limit',
      'regex-size-limit',
      'field-match-separator',
      'field-context-separator',
      'context-separator',
      'engine',
    ],
    skip: 1,
    skipUnless: ['-e', '-f', '--regexp', '--file', '--files', '--type-list'],
    subtree: true,
    defaultOperand: '.',
    followsLinks: ['-L', '--follow'],
    pathOpts: { '-f': 'read', '--file': 'read', '--ignore-file': 'read' },
  }),
  ag: simple({
    short: 'ABCGgm',
    long: ['ignore', 'file-search-regex', 'depth', 'pager'],
    skip: 1,
    subtree: true,
    defaultOperand: '.',
  }),
  ack: simple({
    short: 'ABCgm',
    long: ['ignore-dir', 'type', 'match'],
    skip: 1,
    subtree: true,
    defaultOperand: '.',
  }),
  jq: simple({
    short: 'fL',
    long: ['arg', 'argjson', 'slurpfile', 'rawfile', 'indent', 'from-file', 'args', 'jsonargs', 'tab'],
    skip: 1,
    skipUnless: ['-f', '--from-file'],
    pathOpts: { '-f': 'read', '--from-file': 'read', '-L': 'read' },
  }),
  base64: simple({ short: 'w', long: ['wrap'] }),
  base32: simple({ short: 'w', long: ['wrap'] }),
  zcat: simple({}),
  bzcat: simple({}),
  xzcat: simple({}),
  zless: simple({}),
  zgrep: simple({ short: 'efmABC', skip: 1, skipUnless: ['-e', '-f'] }),
  bat: simple({
    short: 'lrHmp',
    long: [
      'language',
      'line-range',
      'highlight-line',
      'map-syntax',
      'theme',
      'style',
      'tabs',
      'wrap',
      'color',
      'paging',
      'pager',
      'terminal-width',
      'file-name',
    ],
  }),
  lsattr: simple({ recursive: ['-R'] }),
  getfacl: simple({ recursive: ['-R', '--recursive'] }),
  test: (cx) => {
    for (const f of cx.args) {
      if (f.value.startsWith('-') && f.uncertain === undefined) continue;
      if (
        f.uncertain !== undefined ||
        f.value.includes('/') ||
        f.value.startsWith('.') ||
        f.tilde ||
        cx.exists(f)
      ) {
        cx.read(f);
      }
    }
  },
  shasum: simple({ short: 'a', long: ['algorithm'] }),
  md5: simple({ short: 's' }),
  look: simple({ short: 't', skip: 1 }),
};
readers['['] = readers.test!;
readers['[['] = readers.test!;
readers.egrep = readers.grep!;
readers.fgrep = readers.grep!;
readers.vdir = readers.ls!;
