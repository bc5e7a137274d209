import type { CommandHandler } from '../effects/extractTypes.js';
import { has, parseArgs, values } from './argv.js';
import { emitOptions, emitRole, literal, simple } from './spec.js';

const REF = { '-r': 'read', '--reference': 'read' } as const;

/** chmod/chown/chgrp: the first operand is the mode or owner unless `--reference=FILE` gives it. */
function modeThenFiles(short: string): CommandHandler {
  return simple({
    short,
    long: ['reference', 'from'],
    flags: ['recursive'],
    operands: 'write',
    skip: 1,
    skipUnless: ['--reference'],
    recursive: ['-R', '--recursive'],
    pathOpts: { '--reference': 'read' },
  });
}

/** `split`/`csplit`: input read, output files are `PREFIX` + a suffix: judge the prefix's directory. */
const split: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, {
    short: 'abClnt',
    long: [
      'suffix-length',
      'bytes',
      'line-bytes',
      'lines',
      'number',
      'additional-suffix',
      'separator',
      'filter',
      'numeric-suffixes',
      'hex-suffixes',
    ],
  });
  emitOptions(cx, p, {});
  if (has(p, '--filter')) cx.uncertain('split --filter runs a shell command on every chunk');
  const [input, prefix] = p.operands;
  if (input) cx.read(input);
  const out = prefix ?? literal('x');
  cx.write({ ...out, value: `${out.value}*`, glob: out.value.length }, { tag: 'prefix' });
};

const csplit: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, { short: 'bfn', long: ['suffix-format', 'prefix', 'digits'] });
  const [input] = p.operands;
  if (input) cx.read(input);
  const prefix = values(p, '-f', '--prefix')[0] ?? literal('xx');
  cx.write({ ...prefix, value: `${prefix.value}*`, glob: prefix.value.length }, { tag: 'prefix' });
};

/** `patch`: without a file operand it edits the files named inside the patch, which we cannot know. */
const patch: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, {
    short: 'BDdFgiopVrYz',
    long: [
      'prefix',
      'ifdef',
      'directory',
      'fuzz',
      'get',
      'input',
      'output',
      'strip',
      'reject-file',
      'backup-if-mismatch',
      'basename-prefix',
      'suffix',
      'version-control',
      'quoting-style',
      'read-only',
      'reject-format',
    ],
  });
  emitOptions(cx, p, {
    '-i': 'read',
    '--input': 'read',
    '-o': 'write',
    '--output': 'write',
    '-r': 'write',
    '--reject-file': 'write',
  });
  const dir = values(p, '-d', '--directory')[0];
  if (dir) cx.chdir(dir);
  const [original, patchFile] = p.operands;
  if (patchFile) cx.read(patchFile);
  if (original) cx.write(original);
  else if (!has(p, '--dry-run')) cx.uncertain('patch writes the files named inside the patch');
};

/** gzip and friends compress in place (the original is replaced) unless writing to stdout. */
function compressor(short: string, suffix: string, decompress: boolean): CommandHandler {
  return (cx) => {
    const p = parseArgs(cx.args, {
      short,
      long: ['suffix', 'format', 'threads', 'memlimit', 'block-size'],
      flags: ['stdout', 'to-stdout', 'list', 'test', 'keep', 'decompress', 'uncompress'],
    });
    const toStdout = has(p, '-c', '--stdout', '--to-stdout', '-l', '--list', '-t', '--test');
    const recursive = has(p, '-r', '--recursive');
    const unpack = decompress || has(p, '-d', '--decompress', '--uncompress');
    for (const f of p.operands) {
      emitRole(cx, f, toStdout ? 'read' : 'write', recursive ? { scope: 'subtree' } : {});
      if (toStdout || recursive || f.uncertain !== undefined) continue;
      // The file written beside it: `a` → `a.gz`, or `a.gz` → `a`.
      const sibling = unpack ? f.value.replace(/\.[A-Za-z0-9]+$/, '') : `${f.value}${suffix}`;
      if (sibling !== f.value && sibling !== '')
        cx.write({ ...f, value: sibling, glob: f.glob }, { tag: 'output' });
    }
  };
}

export const writers: Record<string, CommandHandler> = {
  rm: simple({
    operands: 'delete',
    flags: ['recursive', 'force', 'interactive', 'dir', 'verbose'],
    long: ['interactive'],
    recursive: ['-r', '-R', '--recursive'],
  }),
  rmdir: simple({ operands: 'delete', flags: ['parents', 'ignore-fail-on-non-empty', 'verbose'] }),
  unlink: simple({ operands: 'delete' }),
  shred: simple({
    short: 'nsx',
    long: ['iterations', 'size', 'random-source'],
    operands: 'write',
    pathOpts: { '--random-source': 'read' },
  }),
  mkdir: simple({ short: 'm', long: ['mode', 'context'], operands: 'write' }),
  mkfifo: simple({ short: 'mZ', long: ['mode', 'context'], operands: 'write' }),
  mknod: simple({ short: 'mZ', long: ['mode', 'context'], operands: 'write' }),
  touch: simple({ short: 'rdt', long: ['reference', 'date', 'time'], operands: 'write', pathOpts: REF }),
  truncate: simple({ short: 'rso', long: ['reference', 'size'], operands: 'write', pathOpts: REF }),
  tee: simple({ operands: 'write', long: ['output-error'] }),
  sponge: simple({ operands: 'write' }),
  chmod: modeThenFiles(''),
  chown: modeThenFiles(''),
  chgrp: modeThenFiles(''),
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
  sort: simple({
    short: 'kotST',
    long: [
      'key',
      'output',
      'field-separator',
      'buffer-size',
      'temporary-directory',
      'parallel',
      'batch-size',
      'compress-program',
      'files0-from',
      'sort',
      'random-source',
    ],
    pathOpts: {
      '-o': 'write',
      '--output': 'write',
      '-T': 'write',
      '--temporary-directory': 'write',
      '--files0-from': 'read',
      '--random-source': 'read',
    },
  }),
  shuf: simple({
    short: 'ino',
    long: ['input-range', 'head-count', 'output', 'random-source'],
    pathOpts: { '-o': 'write', '--output': 'write', '--random-source': 'read' },
  }),
  uniq: (cx) => {
    const p = parseArgs(cx.args, {
      short: 'fsw',
      long: ['skip-fields', 'skip-chars', 'check-chars', 'group', 'all-repeated'],
    });
    const [input, output] = p.operands;
    if (input) cx.read(input);
    if (output) cx.write(output);
  },
  xxd: (cx) => {
    const p = parseArgs(cx.args, { short: 'cgloRsn', long: [] });
    const [input, output] = p.operands;
    if (input) cx.read(input);
    if (output) cx.write(output);
  },
  iconv: simple({
    short: 'fto',
    long: ['from-code', 'to-code', 'output'],
    pathOpts: { '-o': 'write', '--output': 'write' },
  }),
  split,
  csplit,
  patch,
  gzip: compressor('bS', '.gz', false),
  gunzip: compressor('S', '', true),
  bzip2: compressor('', '.bz2', false),
  bunzip2: compressor('', '', true),
  xz: compressor('CFT', '.xz', false),
  unxz: compressor('T', '', true),
  lz4: compressor('', '.lz4', false),
  compress: compressor('b', '.Z', false),
  uncompress: compressor('', '', true),
};
/** zstd keeps the original by default and writes `F.zst` (or `F` from `F.zst` with `-d`, or `-o FILE`). */
function zstd(decompress: boolean): CommandHandler {
  return (cx) => {
    const p = parseArgs(cx.args, { short: 'oD', long: ['output-dir-flat', 'output-dir-mirror'] });
    emitOptions(cx, p, {
      '-o': 'write',
      '-D': 'read',
      '--output-dir-flat': 'write',
      '--output-dir-mirror': 'write',
    });
    const toStdout = has(p, '-c', '--stdout', '-l', '--list', '-t', '--test', '-o');
    const unpack = decompress || has(p, '-d', '--decompress');
    for (const f of p.operands) emitRole(cx, f, toStdout ? 'read' : 'write');
    if (toStdout) return;
    for (const f of p.operands) {
      if (f.uncertain !== undefined) continue;
      cx.write({ ...f, value: unpack ? f.value.replace(/\.zst$/, '') : `${f.value}.zst` }, { tag: 'output' });
    }
  };
}
writers.zstd = zstd(false);
writers.unzstd = zstd(true);
