import type { CommandHandler } from '../../effects/extractTypes.js';
import { has, parseArgs } from '../argv.js';
import { fileCommand } from '../fileCommand.js';
import { simple } from '../spec.js';
import { FILE } from './listingOptions.js';

/** `file`: a symlink is reported as a link unless -L; -p puts the access times back (a metadata write). */
const fileCmd = fileCommand({
  ...FILE,
  followFinal: false,
  followFinalWith: ['-L', '--dereference'],
  writeWith: ['-p', '--preserve-date'],
  pathOpts: { '-m': 'read', '--magic-file': 'read', '-f': 'read', '--files-from': 'read' },
});
const file: CommandHandler = (cx) => {
  fileCmd(cx);
  const p = parseArgs(cx.args, FILE);
  // -f names further files inside a list; -C writes `<magic>.mgc` into the cwd.
  if (has(p, '-f', '--files-from')) cx.uncertain('file -f reads the names of files from a list', 'read');
  if (has(p, '-C', '--compile')) cx.uncertain('file -C writes a compiled magic file');
};

/** Programs that report what a file is: its type (`file`), attributes (`lsattr`) and ACLs (`getfacl`). */
export const fileInfo: Record<string, CommandHandler> = {
  file,
  // e2fsprogs 1.47 `lsattr [-RVadlpv]`: -R does not follow symlinks beneath.
  lsattr: fileCommand({ shortFlags: 'RVadlpv', recursive: ['-R'] }),
  getfacl: simple({ recursive: ['-R', '--recursive'] }),
};
