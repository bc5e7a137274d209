import type { CommandHandler } from '../../effects/extractTypes.js';
import { type ArgSpec, has, parseArgs, values } from '../argv.js';
import { emitOptions, emitRole, literal, unknownOptions } from '../spec.js';
import * as A from './archiveOptions.js';

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

/** Compressors: gzip, bzip2, xz, zstd and friends, packing and unpacking in place. */
export const compressors: Record<string, CommandHandler> = {
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
  zstd: zstd(false),
  unzstd: zstd(true),
};
