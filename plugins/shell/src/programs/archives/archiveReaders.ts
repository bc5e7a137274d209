import type { CommandHandler } from '../../effects/extractTypes.js';
import { fileCommand } from '../fileCommand.js';
import * as T from '../text/textOptions.js';
import { less } from '../text/textReaders.js';
import * as A from './archiveOptions.js';

/** Programs that read compressed files and print their text: the file is read, nothing is written. */
export const archiveReaders: Record<string, CommandHandler> = {
  zcat: fileCommand(A.GUNZIP),
  bzcat: fileCommand(A.BZIP2),
  xzcat: fileCommand(A.XZ),
  // zless runs less on the uncompressed text: less's options and `+CMD`s.
  zless: less,
  // zgrep passes its options to grep.
  zgrep: fileCommand({
    ...T.GREP,
    skip: 1,
    skipUnless: ['-e', '-f', '--regexp', '--file'],
    pathOpts: { '-f': 'read', '--file': 'read' },
  }),
};
