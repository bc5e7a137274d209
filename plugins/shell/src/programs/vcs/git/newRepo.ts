import type { CommandContext } from '../../../effects/extractTypes.js';
import type { Field } from '../../../state/expandWord.js';
import { parseArgs, values } from '../../argv.js';
import { unknownOptions } from '../../spec.js';
import { harmlessValue, riskOf } from './configRisks.js';
import { optionSpec } from './optionSpec.js';
import { SUBCOMMAND_OPTIONS } from './subcommandOptions.js';

// init and clone make a repository rather than use one.

type At = (f: Field) => Field;

function join(dir: Field, name: string): Field {
  return { ...dir, value: `${dir.value.replace(/\/+$/, '')}/${name}`, glob: -1 };
}

/** init [DIR]: creates DIR and DIR/.git (or DIR itself with --bare); a template directory is copied in. */
export function init(cx: CommandContext, args: readonly Field[], at: At): void {
  const p = parseArgs(args, optionSpec(SUBCOMMAND_OPTIONS.init!));
  unknownOptions(cx, p);
  const dir = at(p.operands[0] ?? { value: '.', raw: '.', glob: -1, tilde: false });
  const bare = p.opts.some((o) => o.name === '--bare');
  for (const t of values(p, '--template')) cx.read(at(t), { scope: 'subtree', tag: 'template' });
  for (const s of values(p, '--separate-git-dir')) cx.write(at(s), { scope: 'subtree', tag: 'git-dir' });
  cx.write(dir, { tag: 'init' });
  cx.write(bare ? dir : join(dir, '.git'), { scope: 'subtree', tag: 'init' });
}

/** A repository URL (`scheme://`, `user@host:path`) rather than a local path. */
function isRemote(url: string): boolean {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return !/^file:\/\//i.test(url);
  const colon = url.indexOf(':');
  const slash = url.indexOf('/');
  return colon > 0 && (slash < 0 || colon < slash);
}

/**
 * clone SRC [DIR]: writes DIR (default: the source's basename), reads a local source. `-c`/`--config` keys
 * that run programs, `--upload-pack`, a template directory (its hooks run) and transports that run
 * commands (`ext::`) are code.
 */
export function clone(cx: CommandContext, args: readonly Field[], at: At): void {
  const p = parseArgs(args, optionSpec(SUBCOMMAND_OPTIONS.clone!));
  unknownOptions(cx, p);
  for (const c of values(p, '-c', '--config')) {
    const [k = '', v = ''] = c.value.split(/=(.*)/s);
    if (c.uncertain !== undefined || (riskOf(k) !== undefined && !harmlessValue(k, v)))
      cx.uncertain(`git clone -c ${c.value} configures a program git runs`);
  }
  if (values(p, '-u', '--upload-pack').length > 0) cx.uncertain('git clone --upload-pack runs a program');
  if (values(p, '--template').length > 0) cx.uncertain('git clone --template installs hooks it then runs');
  for (const r of values(p, '--reference', '--reference-if-able'))
    cx.read(at(r), { scope: 'subtree', tag: 'reference' });
  for (const s of values(p, '--separate-git-dir')) cx.write(at(s), { scope: 'subtree', tag: 'git-dir' });
  const [src, target] = p.operands;
  if (!src) return;
  if (src.uncertain !== undefined) cx.uncertain('git clone: the source is not known', 'read');
  else if (/^ext::/i.test(src.value) || /::/.test(src.value.split('/')[0] ?? ''))
    cx.uncertain(`git clone ${src.value}: a remote helper transport runs a program`);
  else if (!isRemote(src.value)) {
    const path = src.value.replace(/^file:\/\//i, '');
    cx.read(at({ ...src, value: path }), { scope: 'subtree', tag: 'clone-source' });
  }
  const name =
    src.value
      .replace(/\/+$/, '')
      .replace(/\.git$/, '')
      .split(/[/:]/)
      .pop() || 'repo';
  const into = at(target ?? { value: name, raw: name, glob: -1, tilde: false });
  cx.write(into, { scope: 'subtree', tag: 'clone' });
  // A repository may hold symlinks pointing anywhere: what this line reaches inside it is not known.
  cx.taint(into);
}
