import type { CommandHandler } from '../effects/extractTypes.js';
import type { Field } from '../state/expandWord.js';
import { has, parseArgs, values } from './argv.js';
import { emitOptions, literal } from './spec.js';

const TAR_SHORT = 'fCTXbFgHIKLNVg';

/**
 * tar: `-c/-r/-u` write the archive and read the members (subtrees); `-x` reads the archive and writes
 * under `-C DIR` (or the cwd); `-t`/`-d` only read. The old form without a dash (`tar czf a.tgz dir`)
 * bundles letters whose arguments follow in order.
 */
const tar: CommandHandler = (cx) => {
  let args = [...cx.args];
  const first = args[0];
  if (first && first.uncertain === undefined && /^[A-Za-z]+$/.test(first.value)) {
    // Old-style bundled letters: expand `czf a.tgz` to `-c -z -f a.tgz`.
    const expanded: Field[] = [];
    let next = 1;
    for (const c of first.value) {
      expanded.push({ ...first, value: `-${c}` });
      if (TAR_SHORT.includes(c) && args[next]) expanded.push(args[next++]!);
    }
    args = [...expanded, ...args.slice(next)];
  }
  const p = parseArgs(args, {
    short: TAR_SHORT,
    long: [
      'file',
      'directory',
      'files-from',
      'exclude-from',
      'exclude',
      'blocking-factor',
      'info-script',
      'new-volume-script',
      'group',
      'owner',
      'mode',
      'mtime',
      'newer',
      'newer-mtime',
      'after-date',
      'use-compress-program',
      'to-command',
      'checkpoint',
      'checkpoint-action',
      'index-file',
      'listed-incremental',
      'label',
      'format',
      'transform',
      'xform',
      'strip-components',
      'volno-file',
      'rsh-command',
      'suffix',
      'backup',
      'record-size',
      'tape-length',
      'atime-preserve',
      'occurrence',
      'sort',
      'warning',
      'quoting-style',
      'owner-map',
      'group-map',
      'xattrs-include',
      'xattrs-exclude',
      'level',
    ],
    flags: [
      'create',
      'extract',
      'get',
      'list',
      'append',
      'update',
      'diff',
      'compare',
      'delete',
      'to-stdout',
      'gzip',
      'bzip2',
      'xz',
      'zstd',
      'verbose',
    ],
  });
  emitOptions(cx, p, {
    '-T': 'read',
    '--files-from': 'read',
    '-X': 'read',
    '--exclude-from': 'read',
    '--index-file': 'write',
    '--listed-incremental': 'write',
    '-g': 'write',
    '--volno-file': 'write',
    '--newer': 'read',
  });
  for (const o of p.opts) {
    if (
      [
        '-I',
        '--use-compress-program',
        '--to-command',
        '-F',
        '--info-script',
        '--new-volume-script',
        '--rsh-command',
      ].includes(o.name) ||
      (o.name === '--checkpoint-action' && /exec/.test(o.value?.value ?? ''))
    ) {
      cx.uncertain(`tar ${o.name} runs a program we do not analyse`);
    }
  }
  const archive = values(p, '-f', '--file')[0];
  const create = has(p, '-c', '--create', '-r', '--append', '-u', '--update');
  const extract = has(p, '-x', '--extract', '--get');
  const del = has(p, '--delete');
  const toStdout = has(p, '-O', '--to-stdout');
  if (archive && archive.value !== '-') {
    if (create || del) cx.write(archive, { tag: 'archive' });
    else cx.read(archive, { tag: 'archive' });
  }
  // `-C DIR` applies to what follows it; members are relative to the last one given.
  const dirs = values(p, '-C', '--directory');
  const base = dirs[dirs.length - 1];
  const under = (f: Field): Field => {
    if (!base || f.value.startsWith('/') || f.tilde || f.uncertain !== undefined) return f;
    return {
      ...f,
      value: `${base.value}/${f.value}`,
      tilde: base.tilde,
      glob: f.glob >= 0 ? f.glob + base.value.length + 1 : -1,
    };
  };
  if (create) {
    for (const m of p.operands) cx.read(under(m), { scope: 'subtree', tag: 'member' });
  } else if (extract && !toStdout) {
    // Members named on the command line are still only known to lie beneath the extraction directory.
    const into = base ?? literal('.');
    cx.write(into, { scope: 'subtree', tag: 'extract' });
    // `-P` keeps absolute names and `..`: members may land anywhere.
    if (has(p, '-P', '--absolute-names')) cx.uncertain('tar -P extracts members to absolute paths');
    cx.taint(into);
  }
};

/** zip ARCHIVE FILES…: the archive is written, the files read (subtrees with `-r`). */
const zip: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, {
    short: 'bnOtPZsxi',
    long: [
      'temp-path',
      'output-file',
      'suffixes',
      'password',
      'split-size',
      'exclude',
      'include',
      'compression-method',
    ],
  });
  emitOptions(cx, p, { '-b': 'write', '--temp-path': 'write', '-O': 'write', '--output-file': 'write' });
  if (has(p, '-@', '--names-stdin')) cx.uncertain('zip -@ takes the file names from stdin', 'read');
  if (has(p, '-T', '--test') && has(p, '-TT', '--unzip-command')) cx.uncertain('zip -TT runs a program');
  const [archive, ...files] = p.operands;
  const scope = has(p, '-r', '-R', '--recurse-paths') ? ('subtree' as const) : ('path' as const);
  if (archive) cx.write(archive, { tag: 'archive' });
  for (const f of files) cx.read(f, { scope });
};

/** unzip ARCHIVE: extracts under `-d DIR` or the cwd; `-l`/`-t`/`-p`/`-v`/`-Z` only read. */
const unzip: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, { short: 'dPx' });
  const [archive] = p.operands;
  if (archive) cx.read(archive, { tag: 'archive' });
  if (has(p, '-l', '-t', '-p', '-v', '-Z', '-c', '-z')) return;
  const into = values(p, '-d')[0] ?? literal('.');
  cx.write(into, { scope: 'subtree', tag: 'extract' });
  cx.taint(into);
};

export const archives: Record<string, CommandHandler> = { tar, zip, unzip, bsdtar: tar, gtar: tar };
