import type { CommandHandler } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { type ArgSpec, has, parseArgs, values } from '../argv.js';
import { escapeRegExp } from '../fnmatch.js';
import { literal, unknownOptions } from '../spec.js';

/** `mktemp --help` (GNU coreutils 9.1): every option, with the ones taking a value. */
const MKTEMP: ArgSpec = {
  short: 'p',
  shortFlags: 'dqtu',
  long: ['suffix'],
  // `--tmpdir[=DIR]`: its value is optional and only attached, read before parsing.
  flags: ['directory', 'dry-run', 'quiet', 'help', 'version', 'tmpdir'],
};

/**
 * mktemp [-d] [-p DIR | --tmpdir[=DIR] | -t] [TEMPLATE]: creates one file (or directory) whose name is
 * TEMPLATE with its trailing X's replaced by random letters and digits, in DIR, $TMPDIR or /tmp when one of
 * those options is given or there is no template, else relative to the cwd. The drawn name is not known:
 * it is judged as a write of every name of that shape in the directory (existing ones are walked; a rule
 * on the template itself, `tmp.XXXX`, is judged on it). `-u` creates nothing.
 */
export const mktemp: CommandHandler = (cx) => {
  const attached = cx.args.filter((f) => f.value.startsWith('--tmpdir='));
  const p = parseArgs(
    cx.args.filter((f) => !attached.includes(f)),
    MKTEMP,
  );
  unknownOptions(cx, p);
  if (has(p, '-u', '--dry-run', '--help', '--version')) return;
  const template = p.operands[0];
  if (template?.uncertain !== undefined) {
    cx.uncertain('mktemp: the template is not known');
    return;
  }
  const suffix = values(p, '--suffix')[0]?.value ?? '';
  const given =
    values(p, '-p')[0] ?? attached.map((f) => ({ ...f, value: f.value.slice('--tmpdir='.length) }))[0];
  const tmpdir = given;
  const inTmp =
    template === undefined || tmpdir !== undefined || attached.length > 0 || has(p, '-t', '--tmpdir');
  const env = cx.variable('TMPDIR');
  let dir: Field;
  if (inTmp) {
    if (tmpdir !== undefined && tmpdir.value !== '') dir = tmpdir;
    else if (env === null || env === '') {
      cx.uncertain('mktemp: $TMPDIR is not known');
      return;
    } else dir = literal(env ?? '/tmp');
    if (env === '') dir = literal('/tmp');
  } else dir = literal('.');
  const name = template?.value ?? 'tmp.XXXXXXXXXX';
  const slash = name.lastIndexOf('/');
  const base = name.slice(slash + 1);
  if (slash !== -1)
    dir = inTmp
      ? { ...dir, value: `${dir.value}/${name.slice(0, slash)}` }
      : literal(name.slice(0, slash) || '/');
  const x = /X+$/.exec(base)?.[0].length ?? 0;
  const shape = new RegExp(
    `^${escapeRegExp(base.slice(0, base.length - x))}[A-Za-z0-9]{${x}}${escapeRegExp(suffix)}$`,
  );
  cx.write({ ...dir, value: `${dir.value}/${base}${suffix}` }, { tag: 'template' });
  cx.write(dir, {
    scope: 'subtree',
    tag: 'mktemp',
    filter: { name: `mktemp names ${base}${suffix}`, skips: (rel) => rel.includes('/') || !shape.test(rel) },
  });
};
