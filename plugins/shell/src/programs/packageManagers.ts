import type { CommandHandler } from '../effects/extractTypes.js';
import { has, parseArgs, values } from './argv.js';
import { emitOptions, literal } from './spec.js';

/** npm/pnpm/yarn: work in `--prefix`/`-C`/`--dir`/`--cwd` (or the cwd); `-g` installs somewhere global. */
function packageManager(dirOpts: string[]): CommandHandler {
  return (cx) => {
    const p = parseArgs(cx.args, {
      short: 'C',
      long: [
        'prefix',
        'dir',
        'cwd',
        'filter',
        'workspace',
        'registry',
        'tag',
        'loglevel',
        'userconfig',
        'cache',
      ],
    });
    emitOptions(cx, p, { '--userconfig': 'read', '--cache': 'write' });
    if (has(p, '-g', '--global', '--location=global'))
      cx.uncertain(`${cx.name} -g writes to a global prefix`);
    const dir = values(p, ...dirOpts)[0] ?? literal('.');
    cx.write(dir, { scope: 'subtree', tag: 'project' });
  };
}

/** pip: installs into a site directory that is not on the command line unless `--target`/`--prefix`. */
const pip: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, {
    short: 'rcedtbi',
    long: [
      'requirement',
      'constraint',
      'editable',
      'target',
      'prefix',
      'root',
      'src',
      'dest',
      'index-url',
      'extra-index-url',
      'find-links',
      'log',
      'cache-dir',
      'python',
      'build',
    ],
  });
  emitOptions(cx, p, {
    '-r': 'read',
    '--requirement': 'read',
    '-c': 'read',
    '--constraint': 'read',
    '-e': 'read',
    '--editable': 'read',
    '--log': 'write',
    '--cache-dir': 'write',
  });
  const [sub] = p.operands;
  const targets = values(p, '-t', '--target', '--prefix', '--root', '-d', '--dest', '--src');
  for (const t of targets) cx.write(t, { scope: 'subtree', tag: 'target' });
  if (sub && ['install', 'uninstall', 'download', 'wheel'].includes(sub.value) && targets.length === 0) {
    cx.uncertain(`pip ${sub.value} writes to a site directory we cannot see`);
  }
};


export const packageManagers: Record<string, CommandHandler> = {
  npm: packageManager(['--prefix']),
  pnpm: packageManager(['-C', '--dir']),
  yarn: packageManager(['--cwd']),
  npx: packageManager(['--prefix']),
  pip,
  pip3: pip,
};
