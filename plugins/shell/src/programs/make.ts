import type { CommandHandler } from '../effects/extractTypes.js';
import type { Field } from '../state/expandWord.js';
import { parseArgs, values } from './argv.js';
import { emitOptions, literal } from './spec.js';

/** make [-C DIR] [-f FILE]: builds under DIR (recipes are programs and are not analysed). */
export const make: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, {
    short: 'CfIjloWE',
    long: [
      'directory',
      'file',
      'makefile',
      'include-dir',
      'jobs',
      'load-average',
      'old-file',
      'assume-old',
      'what-if',
      'new-file',
      'assume-new',
      'eval',
    ],
  });
  emitOptions(cx, p, {
    '-f': 'read',
    '--file': 'read',
    '--makefile': 'read',
    '-I': 'read',
    '--include-dir': 'read',
  });
  if (values(p, '-E', '--eval').length > 0) cx.uncertain('make --eval adds rules we do not analyse');
  let dir: Field = literal('.');
  for (const c of values(p, '-C', '--directory'))
    dir = c.value.startsWith('/') || c.tilde ? c : { ...c, value: `${dir.value}/${c.value}` };
  cx.write(dir, { scope: 'subtree', tag: 'build' });
};

