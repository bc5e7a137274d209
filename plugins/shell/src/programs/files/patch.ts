import type { CommandContext, CommandHandler } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { type ArgSpec, has, type ParsedArgs, parseArgs, values } from '../argv.js';
import { emitOptions, literal } from '../spec.js';
import { diffTargets, stripName } from './patchTargets.js';

/** `patch --help`, GNU patch 2.7.6 (arities probed; `-x NUM` and `-m` are undocumented debug/merge options). */
export const PATCH: ArgSpec = {
  short: 'dgioprxzBDFVY',
  shortFlags: 'bceflmnstuvENRTZ',
  long: [
    'strip',
    'fuzz',
    'input',
    'output',
    'reject-file',
    'ifdef',
    'quoting-style',
    'version-control',
    'prefix',
    'basename-prefix',
    'suffix',
    'get',
    'directory',
    'reject-format',
    'read-only',
  ],
  flags: [
    'ignore-whitespace',
    'context',
    'ed',
    'normal',
    'unified',
    'forward',
    'reverse',
    'merge',
    'remove-empty-files',
    'set-utc',
    'set-time',
    'backup',
    'backup-if-mismatch',
    'no-backup-if-mismatch',
    'batch',
    'force',
    'quiet',
    'silent',
    'verbose',
    'dry-run',
    'posix',
    'binary',
    'version',
    'help',
  ],
};

/**
 * A content file that does not exist and that the line does not write first: the program fails before it
 * writes anything.
 */
export function missing(cx: CommandContext, f: Field, why: string): boolean {
  return f.uncertain === undefined && !/written by this command line/.test(why) && !cx.exists(f);
}

/** `DIR/name` for `-d DIR` (patch changes into DIR first), or the name itself. */
function inDir(dir: Field | undefined, name: string): Field {
  if (!dir || name.startsWith('/')) return literal(name);
  return { ...dir, value: `${dir.value.replace(/\/+$/, '')}/${name}`, glob: -1 };
}

/** The files the patch changes, from its headers; `null` (after an uncertain access) when they cannot be known. */
function targets(
  cx: CommandContext,
  p: ParsedArgs,
  patchFile: Field | undefined,
  dir: Field | undefined,
): string[] | null {
  if (!patchFile || patchFile.value === '-') {
    cx.uncertain('patch reads the patch from stdin: the files it changes are not known', 'write');
    return null;
  }
  const content = cx.readContent(patchFile, 4 * 1024 * 1024);
  if ('uncertain' in content) {
    if (missing(cx, patchFile, content.uncertain)) {
      // No patch, no change: patch fails to open it (or the shell its `<`). One that appears before the run
      // can only change files beneath the directory (patch refuses absolute and `..` names): judged there.
      cx.write(dir ?? literal('.'), { scope: 'subtree', tag: 'missing-patch' });
      return null;
    }
    cx.uncertain(`patch -i ${patchFile.raw}: ${content.uncertain}`, 'write');
    return null;
  }
  const d = diffTargets(content.text);
  if (d.unknown !== undefined || has(p, '-e', '--ed', '-n', '--normal')) {
    cx.uncertain(`patch -i ${patchFile.raw}: ${d.unknown ?? 'an ed script or normal diff'}`, 'write');
    return null;
  }
  const pv = values(p, '-p', '--strip')[0];
  const strip = pv ? Number(pv.value) : undefined;
  if (strip !== undefined && !(Number.isInteger(strip) && strip >= 0)) {
    cx.uncertain(`patch -p ${pv!.raw} is not a number`, 'write');
    return null;
  }
  const out: string[] = [];
  for (const n of d.names) {
    const s = stripName(n, strip);
    if (s !== null) out.push(s);
  }
  return out;
}

/**
 * patch: writes the files the diff names (read at check time, `-p N` stripped, under `-d DIR`), with their
 * `.orig` backups and `.rej` rejects beside them; `ORIGFILE` or `-o FILE` instead when given.
 */
export const patch: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, PATCH);
  emitOptions(cx, p, {
    '-i': 'read',
    '--input': 'read',
    '-o': 'write',
    '--output': 'write',
    '-r': 'write',
    '--reject-file': 'write',
  });
  const get = values(p, '-g', '--get')[0];
  if (get && get.value !== '0') cx.uncertain('patch -g gets files from RCS or SCCS: it runs their tools');
  const dir = values(p, '-d', '--directory')[0];
  const [original, patchOperand] = p.operands;
  if (patchOperand) cx.read(patchOperand, { tag: 'patchfile' });
  // `patch -p1 < fix.diff`: the redirect's file is the patch.
  const patchFile = values(p, '-i', '--input').at(-1) ?? patchOperand ?? cx.stdinFile();
  const dry = has(p, '--dry-run');
  const output = values(p, '-o', '--output')[0];
  if (original) {
    // Only ORIGFILE is patched (relative to the cwd, not -d: patch opens it after the chdir, so both).
    cx.emit(original, dry || output ? 'read' : 'write');
    if (dir && !original.value.startsWith('/'))
      cx.emit(inDir(dir, original.value), dry || output ? 'read' : 'write');
    return;
  }
  const names = targets(cx, p, patchFile, dir);
  if (names === null) return;
  const prefix = values(p, '-B', '--prefix')[0];
  const basePrefix = values(p, '-Y', '--basename-prefix')[0];
  const suffix = values(p, '-z', '--suffix')[0];
  for (const x of [suffix, basePrefix]) {
    if (x && (x.uncertain !== undefined || x.value.includes('/')))
      cx.uncertain(`patch: the backup name ${x.raw} may lie in another directory`);
  }
  for (const name of names) {
    const f = inDir(dir, name);
    if (dry || output) {
      cx.read(f, { tag: 'target' });
      continue;
    }
    cx.write(f, { tag: 'target' });
    if (!values(p, '-r', '--reject-file').length)
      cx.write({ ...f, value: `${f.value}.rej` }, { tag: 'reject' });
    cx.write({ ...f, value: `${f.value}${suffix?.value ?? '.orig'}` }, { tag: 'backup' });
    if (prefix) cx.write(inDir(dir, `${prefix.value}${name}`), { tag: 'backup' });
  }
};
