import type { CommandHandler } from '../../effects/extractTypes.js';
import { fileCommand, withArgs } from '../fileCommand.js';
import { simple } from '../spec.js';
import { grepFilter } from './grepFilter.js';
import { grepPrints } from './grepPrints.js';
import { rgFilter } from './rgFilter.js';
import * as T from './textOptions.js';

// Commands whose operands are read. Option tables list the options that take an argument (so the argument is
// not mistaken for an operand) and the ones whose argument is itself a path.

/** `strings @FILE` reads further options from FILE, which may name anything. */
const strings: CommandHandler = (cx) => {
  if (cx.args.some((f) => f.value.startsWith('@') || f.uncertain !== undefined))
    cx.uncertain('strings @FILE reads options from a file', 'read');
  fileCommand(T.STRINGS)(cx);
};

/** ripgrep 13 (not installed here: its table is not complete). `--pre CMD` runs CMD on every file searched. */
const rgSearch = fileCommand({
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
  followWith: ['-L', '--follow'],
  pathOpts: { '-f': 'read', '--file': 'read', '--ignore-file': 'read' },
  filterFrom: rgFilter,
});
const rg: CommandHandler = (cx) => {
  rgSearch(cx);
  if (cx.args.some((f) => /^--pre(=|$)/.test(f.value))) cx.uncertain('rg --pre runs a program on every file');
};

const lessFiles = fileCommand({
  ...T.LESS,
  pathOpts: {
    '-o': 'write',
    '-O': 'write',
    '--log-file': 'write',
    '--LOG-FILE': 'write',
    '-k': 'read',
    '--lesskey-file': 'read',
    '-T': 'read',
    '--tag-file': 'read',
  },
});
/**
 * less: `+CMD` operands are commands run on each file; the harmless ones (go to a line, the end, a pattern,
 * follow) are allowed, anything else (`+!cmd`, `+s file`, `+:e file`, `+v`) is uncertain.
 */
export const less: CommandHandler = (cx) => {
  const cmds = cx.args.filter((f) => f.value.startsWith('+'));
  for (const c of cmds) {
    if (c.uncertain !== undefined || !/^\+(\d*[GgF]?|\d+|\/[^!|]*)$/.test(c.value))
      cx.uncertain(`less ${c.raw} runs a less command on each file`, 'write', c.raw);
  }
  lessFiles(
    withArgs(
      cx,
      cx.args.filter((f) => !f.value.startsWith('+')),
    ),
  );
};

/** Programs that read text and print it, or what they find in it. */
export const textReaders: Record<string, CommandHandler> = {
  cat: fileCommand(T.CAT),
  tac: fileCommand(T.TAC),
  nl: fileCommand(T.NL),
  head: fileCommand(T.HEAD),
  tail: fileCommand(T.TAIL),
  less,
  more: fileCommand(T.MORE),
  wc: fileCommand({ ...T.WC, pathOpts: { '--files0-from': 'read' } }),
  od: fileCommand(T.OD),
  hexdump: fileCommand({ ...T.HEXDUMP, pathOpts: { '-f': 'read', '--format-file': 'read' } }),
  hd: fileCommand({ ...T.HEXDUMP, pathOpts: { '-f': 'read', '--format-file': 'read' } }),
  strings: strings,
  cut: fileCommand(T.CUT),
  paste: fileCommand(T.PASTE),
  comm: fileCommand(T.COMM),
  join: fileCommand(T.JOIN),
  cmp: fileCommand(T.CMP),
  fold: fileCommand(T.FOLD),
  fmt: fileCommand(T.FMT),
  expand: fileCommand(T.EXPAND),
  unexpand: fileCommand(T.UNEXPAND),
  column: fileCommand(T.COLUMN),
  rev: fileCommand(T.REV),
  tr: fileCommand({ ...T.TR, operands: 'none' }),
  diff: fileCommand({
    ...T.DIFF,
    recursive: ['-r', '--recursive'],
    pathOpts: { '-X': 'read', '--exclude-from': 'read', '--from-file': 'read', '--to-file': 'read' },
  }),
  grep: grepPrints(
    fileCommand({
      ...T.GREP,
      skip: 1,
      skipUnless: ['-e', '-f', '--regexp', '--file'],
      recursive: ['-r', '-R', '--recursive', '--dereference-recursive'],
      defaultOperand: '.',
      defaultOnlyRecursive: true,
      // -r follows symlinks named on the command line only, -R every symlink it meets (grep(1)).
      followWith: ['-R', '--dereference-recursive'],
      // --include/--exclude/--exclude-dir: the walk skips what grep skips (a denied file it never opens is not read).
      filterFrom: grepFilter,
      pathOpts: { '-f': 'read', '--file': 'read', '--exclude-from': 'read' },
    }),
  ),
  rg,
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
  base64: fileCommand(T.BASE64),
  base32: fileCommand(T.BASE32),
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
  look: fileCommand({ ...T.LOOK, skip: 1 }),
};
textReaders.egrep = textReaders.grep!;
textReaders.fgrep = textReaders.grep!;
