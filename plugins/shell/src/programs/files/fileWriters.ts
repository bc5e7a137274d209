import type { CommandHandler } from '../effects/extractTypes.js';
import * as A from './archiveOptions.js';
import { type ArgSpec, has, parseArgs, values } from './argv.js';
import { createdParents, shredNames } from './createdParents.js';
import { fileCommand } from './fileCommand.js';
import { patch } from './patch.js';
import { emitOptions, emitRole, literal, simple, unknownOptions } from './spec.js';
import * as T from './textOptions.js';
import * as W from './writerOptions.js';
import { xxd } from './xxd.js';

/** A mode chmod's getopt reads as options (`chmod -w f`, `chmod -R -x,g+w d`): letters of a symbolic mode. */
const MODE_OPTION = /^-[rwxXstugoa0-7=+,-]+$/;

/**
 * chmod: the first operand is the mode unless `--reference=FILE` gives it or it was written as an option
 * (`-x`). `-R` walks without following symlinks beneath (chmod(1): symlinks met during the walk are ignored).
 */
const chmod: CommandHandler = (cx) => {
  let modeAsOption = false;
  const args = cx.args.filter((f) => {
    if (f.uncertain !== undefined || !MODE_OPTION.test(f.value) || /^-[cfvR]+$/.test(f.value)) return true;
    modeAsOption = true;
    return false;
  });
  const p = parseArgs(args, W.CHMOD);
  emitOptions(cx, p, { '--reference': 'read' });
  const skip = modeAsOption || has(p, '--reference') ? 0 : 1;
  const scope = has(p, '-R', '--recursive') ? ('subtree' as const) : ('path' as const);
  for (const f of p.operands.slice(skip)) cx.write(f, { scope });
};

/**
 * chown/chgrp OWNER FILE…: `-h` changes a link itself; with `-R`, `-L` follows every symlink beneath and
 * `-H` those on the command line (the default `-P` follows none, and not the operand either).
 */
function owner(spec: ArgSpec): CommandHandler {
  return (cx) => {
    const p = parseArgs(cx.args, spec);
    emitOptions(cx, p, { '--reference': 'read' });
    const skip = has(p, '--reference') ? 0 : 1;
    const recursive = has(p, '-R', '--recursive');
    // The last of -H/-L/-P wins.
    const traversal = [...p.opts].reverse().find((o) => ['-H', '-L', '-P'].includes(o.name))?.name ?? '-P';
    const onLink = recursive
      ? traversal === '-P' && !has(p, '--dereference')
      : has(p, '-h', '--no-dereference');
    for (const f of p.operands.slice(skip)) {
      cx.write(f, {
        ...(recursive ? { scope: 'subtree' as const } : {}),
        ...(onLink ? { followFinal: false } : {}),
        ...(recursive && traversal === '-L' ? { followLinks: true } : {}),
      });
    }
  };
}

/** sort: operands read, `-o` written, `-T` a directory written; `--compress-program` runs a program. */
const sort: CommandHandler = (cx) => {
  fileCommand({
    ...W.SORT,
    pathOpts: {
      '-o': 'write',
      '--output': 'write',
      '-T': 'write',
      '--temporary-directory': 'write',
      '--files0-from': 'read',
      '--random-source': 'read',
    },
  })(cx);
  if (has(parseArgs(cx.args, W.SORT), '--compress-program'))
    cx.uncertain('sort --compress-program runs a program we do not analyse');
};

/** shuf: `-e` shuffles its operands as strings, `-i` a range: then no operand is a file. */
const shuf: CommandHandler = (cx) => {
  const strings = has(parseArgs(cx.args, W.SHUF), '-e', '--echo', '-i', '--input-range');
  fileCommand({
    ...W.SHUF,
    operands: strings ? 'none' : 'read',
    pathOpts: { '-o': 'write', '--output': 'write', '--random-source': 'read' },
  })(cx);
};

/** `split`/`csplit`: input read, output files are `PREFIX` + a suffix: judge the prefix's directory. */
const split: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, W.SPLIT);
  emitOptions(cx, p, {});
  if (has(p, '--filter')) cx.uncertain('split --filter runs a shell command on every chunk');
  const [input, prefix] = p.operands;
  if (input) cx.read(input);
  const out = prefix ?? literal('x');
  cx.write({ ...out, value: `${out.value}*`, glob: out.value.length }, { tag: 'prefix' });
};

const csplit: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, W.CSPLIT);
  unknownOptions(cx, p);
  const [input] = p.operands;
  if (input) cx.read(input);
  const prefix = values(p, '-f', '--prefix')[0] ?? literal('xx');
  cx.write({ ...prefix, value: `${prefix.value}*`, glob: prefix.value.length }, { tag: 'prefix' });
};

/**
 * gzip and friends compress in place: the original is read and removed, `F.gz` written beside it (`F` from
 * `F.gz` when unpacking) — unless writing to stdout, listing or testing. `-S SUF` names the sibling.
 */
function compressor(spec: ArgSpec | undefined, suffix: string, decompress: boolean): CommandHandler {
  return (cx) => {
    const p = parseArgs(cx.args, spec ?? {});
    unknownOptions(cx, p);
    if (has(p, '--files', '--files0'))
      cx.uncertain(`${cx.name} --files reads the names of files from a list`);
    const toStdout = has(p, '-c', '--stdout', '--to-stdout', '-l', '--list', '-t', '--test');
    const recursive = has(p, '-r', '--recursive');
    const unpack = decompress || has(p, '-d', '--decompress', '--uncompress');
    const custom = values(p, '-S', '--suffix')[0];
    if (custom && (custom.uncertain !== undefined || custom.value.includes('/')))
      cx.uncertain(`${cx.name} -S ${custom.raw} may name a file in another directory`);
    const suf = custom?.value ?? suffix;
    for (const f of p.operands) {
      emitRole(cx, f, toStdout ? 'read' : 'write', recursive ? { scope: 'subtree' } : {});
      if (toStdout || recursive || f.uncertain !== undefined) continue;
      const sibling = unpack
        ? custom && f.value.endsWith(suf)
          ? f.value.slice(0, -suf.length)
          : f.value.replace(/\.[A-Za-z0-9]+$/, '')
        : `${f.value}${suf}`;
      if (sibling !== f.value && sibling !== '')
        cx.write({ ...f, value: sibling, glob: f.glob }, { tag: 'output' });
    }
  };
}

/** mknod NAME TYPE [MAJOR MINOR]: only NAME is a path. */
const mknod: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, W.MKNOD);
  unknownOptions(cx, p);
  const [name] = p.operands;
  if (name) cx.write(name);
};

const shredFiles = fileCommand({ ...W.SHRED, operands: 'write', pathOpts: { '--random-source': 'read' } });
const shred: CommandHandler = (cx) => {
  shredFiles(cx);
  const p = parseArgs(cx.args, W.SHRED);
  if (has(p, '-u', '--remove') || cx.args.some((f) => f.value.startsWith('--remove='))) {
    for (const f of p.operands) shredNames(cx, f);
  }
};

const mkdirs = fileCommand({ ...W.MKDIR, operands: 'write' });
const mkdir: CommandHandler = (cx) => {
  mkdirs(cx);
  const p = parseArgs(cx.args, W.MKDIR);
  if (has(p, '-p', '--parents')) for (const f of p.operands) createdParents(cx, f, 'mkdir -p');
};

export const writers: Record<string, CommandHandler> = {
  rm: fileCommand({ ...W.RM, operands: 'delete', recursive: ['-r', '-R', '--recursive'] }),
  rmdir: fileCommand({ ...W.RMDIR, operands: 'delete' }),
  unlink: fileCommand({ ...W.UNLINK, operands: 'delete' }),
  shred,
  mkdir,
  mkfifo: fileCommand({ ...W.MKFIFO, operands: 'write' }),
  mknod,
  touch: fileCommand({
    ...W.TOUCH,
    operands: 'write',
    // -h changes the link itself; -r only reads the reference's times.
    followFinal: true,
    pathOpts: { '-r': 'list', '--reference': 'list' },
  }),
  truncate: fileCommand({
    ...W.TRUNCATE,
    operands: 'write',
    pathOpts: { '-r': 'list', '--reference': 'list' },
  }),
  tee: fileCommand({ ...W.TEE, operands: 'write' }),
  sponge: simple({ operands: 'write' }),
  chmod: chmod,
  chown: owner(W.CHOWN),
  chgrp: owner(W.CHGRP),
  chattr: (cx) => {
    const args = cx.args.filter((f) => !/^[+=][aAcCdDeFijmPsStTux]+$/.test(f.value));
    const p = parseArgs(args, { short: 'vp' });
    const recursive = has(p, '-R');
    for (const f of p.operands) cx.write(f, recursive ? { scope: 'subtree' } : {});
  },
  setfacl: simple({
    short: 'mMxX',
    long: ['modify', 'modify-file', 'remove', 'remove-file', 'set', 'set-file'],
    operands: 'write',
    recursive: ['-R', '--recursive'],
    pathOpts: {
      '-M': 'read',
      '-X': 'read',
      '--modify-file': 'read',
      '--remove-file': 'read',
      '--set-file': 'read',
    },
  }),
  dos2unix: simple({ operands: 'write' }),
  unix2dos: simple({ operands: 'write' }),
  sort: sort,
  shuf: shuf,
  uniq: (cx) => {
    const p = parseArgs(cx.args, W.UNIQ);
    unknownOptions(cx, p);
    const [input, output] = p.operands;
    if (input) cx.read(input);
    if (output) cx.write(output);
  },
  xxd,
  iconv: fileCommand({ ...T.ICONV, pathOpts: { '-o': 'write', '--output': 'write' } }),
  split,
  csplit,
  patch,
  gzip: compressor(A.GZIP, '.gz', false),
  gunzip: compressor(A.GUNZIP, '', true),
  bzip2: compressor(A.BZIP2, '.bz2', false),
  bunzip2: compressor(A.BZIP2, '', true),
  xz: compressor(A.XZ, '.xz', false),
  unxz: compressor(A.XZ, '', true),
  // Not complete tables (lz4's own parser, ncompress not installed here): unknown options are skipped.
  lz4: compressor(undefined, '.lz4', false),
  compress: compressor({ short: 'b' }, '.Z', false),
  uncompress: compressor(undefined, '', true),
};
/**
 * zstd keeps the original by default (`--rm` removes it) and writes `F.zst` (`F` from `F.zst` with `-d`), or
 * `-o FILE`, or into `--output-dir-*`; `-c`, `-l`, `-t` only read. `--train` reads its operands and writes the
 * dictionary (`-o`, default `dictionary`). `--filelist LIST` names files we do not read here: uncertain.
 */
function zstd(decompress: boolean): CommandHandler {
  return (cx) => {
    const p = parseArgs(cx.args, A.ZSTD);
    emitOptions(cx, p, {
      '-o': 'write',
      '-D': 'read',
      '--output-dir-flat': 'write',
      '--output-dir-mirror': 'write',
      '--trace': 'write',
      '--patch-from': 'read',
    });
    if (has(p, '--filelist')) cx.uncertain('zstd --filelist names the files to process in a list', 'write');
    const dirs = values(p, '--output-dir-flat', '--output-dir-mirror');
    for (const d of dirs) cx.write(d, { scope: 'subtree', tag: 'output-dir' });
    if (has(p, '--train')) {
      for (const f of p.operands) cx.read(f, { scope: 'subtree' });
      if (!has(p, '-o')) cx.write(literal('dictionary'), { tag: 'dictionary' });
      return;
    }
    const toStdout = has(p, '-c', '--stdout', '-l', '--list', '-t', '--test');
    const remove = has(p, '--rm');
    const recursive = has(p, '-r');
    const unpack = decompress || has(p, '-d', '--decompress', '--uncompress');
    for (const f of p.operands) {
      emitRole(cx, f, remove && !toStdout ? 'delete' : 'read', recursive ? { scope: 'subtree' } : {});
      if (toStdout || has(p, '-o') || dirs.length > 0 || f.uncertain !== undefined) continue;
      const out = unpack ? f.value.replace(/\.zst$/, '') : `${f.value}.zst`;
      if (recursive) cx.write(f, { scope: 'subtree', tag: 'output' });
      else if (out !== f.value) cx.write({ ...f, value: out }, { tag: 'output' });
    }
  };
}
writers.zstd = zstd(false);
writers.unzstd = zstd(true);
