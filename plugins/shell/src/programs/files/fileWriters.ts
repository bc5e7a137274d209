import type { CommandHandler } from '../../effects/extractTypes.js';
import { type ArgSpec, has, parseArgs } from '../argv.js';
import { fileCommand } from '../fileCommand.js';
import { emitOptions, simple, unknownOptions } from '../spec.js';
import { createdParents, shredNames } from './createdParents.js';
import { patch } from './patch.js';
import * as W from './writerOptions.js';

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

/** Programs that create, change the metadata of, or delete files. */
export const fileWriters: Record<string, CommandHandler> = {
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
  patch,
};
