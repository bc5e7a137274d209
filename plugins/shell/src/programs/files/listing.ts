import type { CommandHandler } from '../../effects/extractTypes.js';
import { has, parseArgs } from '../argv.js';
import { fileCommand } from '../fileCommand.js';
import { emitOptions, literal } from '../spec.js';
import { DIR, DU, LS, READLINK, REALPATH, STAT, TREE, VDIR } from './listingOptions.js';

// Programs that list names and metadata (issue 12: `list` is judged as a read of the directory itself, not of
// its files). A recursive listing is a `list` subtree; it follows symlinks beneath its roots only where the
// program does (`ls -RL`, `du -L`, `tree -l`), checked under strace in a scratch tree with a link to a canary.

const lsLike = (spec: typeof LS) =>
  fileCommand({
    ...spec,
    operands: 'list',
    recursive: ['-R', '--recursive'],
    followWith: ['-L', '--dereference'],
    defaultOperand: '.',
  });

/** `tree`: always a recursive listing; `-l` follows links to directories; `-o FILE` writes the output. */
const tree: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, TREE);
  emitOptions(cx, p, {
    '-o': 'write',
    '--gitfile': 'read',
    '--infofile': 'read',
    '--hintro': 'read',
    '--houtro': 'read',
  });
  // `-R` re-runs tree in every directory with `-o 00Tree.html`: writes we do not model.
  if (has(p, '-R')) cx.uncertain('tree -R writes an output file in every directory it lists');
  const operands = p.operands.length > 0 ? p.operands : [literal('.')];
  if (has(p, '--fromfile', '--fromtabfile')) {
    // The operands are files holding a listing: they are read, nothing is walked.
    for (const f of operands) cx.read(f, { tag: 'fromfile' });
    return;
  }
  const followLinks = has(p, '-l');
  for (const f of operands) cx.emit(f, 'list', { scope: 'subtree', ...(followLinks ? { followLinks } : {}) });
};

export const listing: Record<string, CommandHandler> = {
  ls: lsLike(LS),
  dir: lsLike(DIR),
  vdir: lsLike(VDIR),
  // du stats every entry beneath its operands: a recursive listing (`-L` follows links beneath them).
  du: fileCommand({
    ...DU,
    operands: 'list',
    subtree: true,
    defaultOperand: '.',
    followWith: ['-L', '--dereference'],
    pathOpts: { '-X': 'read', '--exclude-from': 'read', '--files0-from': 'read' },
  }),
  tree,
  // stat without -L reports the link itself (lstat), with -L its target.
  stat: fileCommand({
    ...STAT,
    operands: 'list',
    followFinal: false,
    followFinalWith: ['-L', '--dereference'],
  }),
  // readlink reads the link itself; -f/-e/-m resolve every component (metadata only).
  readlink: fileCommand({
    ...READLINK,
    operands: 'list',
    followFinal: false,
    followFinalWith: [
      '-f',
      '-e',
      '-m',
      '--canonicalize',
      '--canonicalize-existing',
      '--canonicalize-missing',
    ],
  }),
  realpath: fileCommand({
    ...REALPATH,
    operands: 'list',
    pathOpts: { '--relative-to': 'list', '--relative-base': 'list' },
  }),
};
