import { statSync } from 'node:fs';
import type { SubtreeFilter } from '@toolgate/core';
import type { CommandContext, CommandHandler } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { type ArgSpec, has, type ParsedArgs, parseArgs, values } from '../argv.js';
import { sshInputs } from '../network/sshConfig.js';
import { emitOptions, literal, unknownOptions } from '../spec.js';
import { CP, INSTALL, LN, MV, SCP } from './copyMoveOptions.js';
import { createdParents } from './createdParents.js';
import { rsyncFilter } from './rsyncFilter.js';

const TARGET = ['-t', '--target-directory'];

/** Sources and destination of cp/mv/install/ln: `-t DIR`, `-T`, or the last operand. */
function split(p: ParsedArgs): { sources: Field[]; dest: Field | undefined } {
  const target = values(p, ...TARGET)[0];
  if (target) return { sources: p.operands, dest: target };
  if (p.operands.length < 2) return { sources: p.operands, dest: undefined };
  return { sources: p.operands.slice(0, -1), dest: p.operands[p.operands.length - 1] };
}

/** Where cp/mv/install/ln put a source: into DEST (a directory), or as DEST itself. */
type DestKind = 'dir' | 'file' | 'new';

function destKind(cx: CommandContext, p: ParsedArgs, dest: Field, sources: number): DestKind {
  if (has(p, '-T', '--no-target-directory')) return 'file';
  if (values(p, ...TARGET).length > 0 || sources > 1 || dest.value.endsWith('/')) return 'dir';
  if (dest.uncertain !== undefined || dest.glob >= 0) return 'new';
  const real = cx.resolveDir(dest);
  if (real === null) return 'new';
  try {
    return statSync(real).isDirectory() ? 'dir' : 'file';
  } catch {
    // Not there yet: it may become a file or (made earlier on this line) a directory — a subtree covers both.
    return 'new';
  }
}

function basename(value: string): string {
  const v = value.replace(/\/+$/, '');
  return v.slice(v.lastIndexOf('/') + 1);
}

/**
 * The writes at the destination: `DEST/NAME` for each source when DEST is a directory (so `cp a /tmp/`
 * is judged where the copy lands, not as a write of all of /tmp), else DEST itself.
 */
export function destWrites(
  cx: CommandContext,
  p: ParsedArgs,
  sources: readonly Field[],
  dest: Field,
  recursive: boolean,
): Field[] {
  const kind = destKind(cx, p, dest, sources.length);
  const scope = recursive ? ('subtree' as const) : ('path' as const);
  const out: Field[] = [];
  if (kind === 'dir' && !has(p, '--parents')) {
    for (const s of sources) {
      const name = s.uncertain === undefined ? basename(s.value) : '';
      if (name === '' || name === '.' || name === '..' || s.under) {
        cx.write(dest, { scope: 'subtree' });
        out.push(dest);
        continue;
      }
      const base = dest.value.endsWith('/') ? dest.value : `${dest.value}/`;
      const sGlob = s.glob >= 0 ? s.glob - (s.value.length - name.length) : -1;
      const target: Field = {
        ...dest,
        value: `${base}${name}`,
        glob: dest.glob >= 0 ? dest.glob : sGlob >= 0 ? base.length + sGlob : -1,
      };
      cx.write(target, { scope });
      out.push(target);
    }
  } else {
    cx.write(dest, { scope: kind === 'file' ? scope : 'subtree' });
    out.push(dest);
  }
  backups(cx, p, out);
  return out;
}

/**
 * `-b`/`--backup[=CONTROL]`/`-S SUFFIX`: the replaced file is renamed to `NAME~` (or `NAME` + suffix), or to
 * `NAME.~N~` when numbered (the default control `existing` numbers when numbered backups already exist, and
 * `VERSION_CONTROL` may say so): judged as the suffixed name and a numbered one beside it.
 */
function backups(cx: CommandContext, p: ParsedArgs, targets: readonly Field[]): void {
  if (!has(p, '-b', '--backup', '-S', '--suffix')) return;
  const suffix = values(p, '-S', '--suffix')[0];
  if (suffix && (suffix.uncertain !== undefined || suffix.value.includes('/'))) {
    cx.uncertain(`${cx.name} --suffix ${suffix.raw} may put the backup in another directory`);
    return;
  }
  for (const t of targets) {
    if (t.uncertain !== undefined) continue;
    cx.write({ ...t, value: `${t.value}${suffix?.value ?? '~'}` }, { followFinal: false, tag: 'backup' });
    // Numbered backups differ only in N: `NAME.~1~` stands for them (a glob here would be judged as the whole
    // directory's subtree, a false deny for every `cp -b` beside a denied file).
    cx.write({ ...t, value: `${t.value}.~1~` }, { followFinal: false, tag: 'backup' });
  }
}

/**
 * cp: sources are read, the copies written. `-r` copies a symlink it meets as a link (also one named on the
 * command line, unless `-H`); `-L` follows every one; without `-r` the source is followed unless `-P`/`-d`.
 */
const cp: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, CP);
  emitOptions(cx, p, {});
  const recursive = has(p, '-r', '-R', '-a', '--recursive', '--archive');
  const last = [...p.opts]
    .reverse()
    .find((o) =>
      ['-L', '-H', '-P', '-d', '-a', '--dereference', '--no-dereference', '--archive'].includes(o.name),
    )?.name;
  const followAll = last === '-L' || last === '--dereference';
  const followArgs = followAll || last === '-H' || (!recursive && last === undefined);
  const scope = recursive ? ('subtree' as const) : ('path' as const);
  const { sources, dest } = split(p);
  for (const s of sources) {
    cx.read(s, {
      scope,
      ...(followArgs ? {} : { followFinal: false }),
      ...(recursive && followAll ? { followLinks: true } : {}),
    });
  }
  if (dest) destWrites(cx, p, sources, dest, recursive);
  else if (sources.length > 0) cx.uncertain('cp without a destination', 'write');
};

const mv: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, MV);
  emitOptions(cx, p, {});
  const { sources, dest } = split(p);
  // Moving removes the source name (the link itself, not its target) and everything beneath it.
  for (const s of sources) cx.write(s, { scope: 'subtree', followFinal: false });
  if (dest) destWrites(cx, p, sources, dest, true);
};

const install: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, INSTALL);
  emitOptions(cx, p, {});
  if (has(p, '--strip-program')) cx.uncertain('install --strip-program runs a program we do not analyse');
  if (has(p, '-d', '--directory')) {
    for (const f of p.operands) cx.write(f);
    return;
  }
  const { sources, dest } = split(p);
  for (const s of sources) cx.read(s);
  if (dest) destWrites(cx, p, sources, dest, false);
  // -D creates the destination's missing ancestors (with -t, the target directory itself too).
  if (dest && has(p, '-D')) {
    if (values(p, ...TARGET).length > 0) cx.write(dest, { tag: 'install -D' });
    createdParents(cx, dest, 'install -D');
  }
};

function dirOf(value: string): string {
  const slash = value.lastIndexOf('/');
  return slash === -1 ? '.' : slash === 0 ? '/' : value.slice(0, slash);
}

/**
 * `ln [-s] TARGET LINK`, `ln TARGET... DIR`, `ln -t DIR TARGET...`. The link itself is written (never
 * followed: `ln -sf t link` replaces `link`). A symlink's target is relative to the link's directory and is
 * read; a hard link's target can be written through the new name, so it is a write.
 */
const ln: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, LN);
  unknownOptions(cx, p);
  const symbolic = has(p, '-s', '--symbolic');
  if (p.operands.length === 0) return;
  const targetDir = values(p, ...TARGET)[0];
  let targets: Field[];
  let links: Field[];
  if (targetDir) {
    targets = p.operands;
    links = targets.map((t) => ({
      ...targetDir,
      value: `${targetDir.value}/${t.value.slice(t.value.lastIndexOf('/') + 1)}`,
      glob: -1,
    }));
  } else if (p.operands.length === 1) {
    targets = p.operands;
    const t = p.operands[0]!;
    links = [literal(t.value.slice(t.value.lastIndexOf('/') + 1) || '.')];
  } else {
    targets = p.operands.slice(0, -1);
    const last = p.operands[p.operands.length - 1]!;
    links =
      targets.length > 1
        ? targets.map((t) => ({
            ...last,
            value: `${last.value}/${t.value.slice(t.value.lastIndexOf('/') + 1)}`,
            glob: -1,
          }))
        : [last];
  }
  const planned: [Field, Field][] = [];
  targets.forEach((t, k) => {
    const link = links[k] ?? links[0]!;
    if (symbolic && !t.value.startsWith('/') && !t.tilde && t.uncertain === undefined) {
      const base =
        targetDir || targets.length > 1
          ? link.value.slice(0, link.value.lastIndexOf('/'))
          : dirOf(link.value);
      const at: Field = { ...t, value: `${base}/${t.value}`, tilde: link.tilde, glob: -1 };
      cx.read(at, { tag: 'target' });
      planned.push([link, at]);
    } else {
      if (symbolic) cx.read(t, { tag: 'target' });
      else cx.write(t, { tag: 'target' });
      planned.push([link, t]);
    }
  });
  for (const l of links) cx.write(l, { followFinal: false, tag: 'link' });
  backups(cx, p, links);
  // Later commands of this line that go through the new link reach its target.
  for (const [link, target] of planned) cx.plannedLink(link, target);
};

/** `dd if=FILE of=FILE`: operands are `key=value`. */
const dd: CommandHandler = (cx) => {
  for (const f of cx.args) {
    const m = /^(if|of)=/.exec(f.value);
    if (!m) continue;
    const value = f.value.slice(3);
    const field: Field = { ...f, value, glob: f.glob >= 3 ? f.glob - 3 : -1, tilde: value.startsWith('~') };
    if (m[1] === 'if') cx.read(field, { tag: 'if' });
    else cx.write(field, { tag: 'of' });
  }
};

/** `host:path`, `user@host:path`, `rsync://…`: not a local path. */
function isRemote(f: Field): boolean {
  if (f.uncertain !== undefined) return false;
  const v = f.value;
  if (v.includes('://')) return true;
  const colon = v.indexOf(':');
  const slash = v.indexOf('/');
  return colon > 0 && (slash === -1 || colon < slash);
}

function remoteCopy(
  spec: ArgSpec,
  recursiveFlags: string[],
  pathOpts: Record<string, 'read' | 'write'>,
  shell: string[],
  /** What the program leaves out of a recursive source (rsync's `--exclude`). */
  filterOf?: (p: ParsedArgs, source: Field, cx: CommandContext) => SubtreeFilter | undefined,
): CommandHandler {
  return (cx: CommandContext) => {
    const p = parseArgs(cx.args, spec);
    emitOptions(cx, p, pathOpts);
    for (const o of p.opts) {
      if (shell.includes(o.name)) cx.uncertain(`${cx.name} ${o.name} runs a program we do not analyse`);
    }
    const recursive = has(p, ...recursiveFlags);
    const scope = recursive ? ('subtree' as const) : ('path' as const);
    const removeSources = has(p, '--remove-source-files');
    // rsync(1): -L/--copy-links follows every symlink, -k/--copy-dirlinks those to directories,
    // --copy-unsafe-links those that lead out of the tree; scp -r follows every symlink it meets.
    const followLinks =
      recursive &&
      (cx.name === 'scp' || has(p, '-L', '--copy-links', '-k', '--copy-dirlinks', '--copy-unsafe-links'));
    for (const o of p.opts) {
      // `-o ProxyCommand=…`, `-o LocalCommand=…`: ssh options that run programs or read key files.
      if (
        cx.name === 'scp' &&
        o.name === '-o' &&
        !/^(Port|User|BatchMode|ConnectTimeout|Compression|StrictHostKeyChecking|LogLevel|ServerAliveInterval|ServerAliveCountMax)[= ]/i.test(
          o.value?.value ?? '',
        )
      )
        cx.uncertain(`${cx.name} -o ${o.value?.raw ?? ''} is an ssh option we do not analyse`);
    }
    const ops = p.operands;
    // A remote operand reached over ssh (scp always; rsync `host:path` without -e, not `host::mod` or
    // rsync://) runs ssh, which reads its config: a ProxyCommand in an agent-written `-F` file runs (strace).
    const overSsh = ops.some(
      (f) => isRemote(f) && (cx.name === 'scp' || (!f.value.includes('://') && !/^[^/]*::/.test(f.value))),
    );
    if (overSsh) sshInputs(cx, cx.name === 'scp' ? values(p, '-F').at(-1) : undefined);
    const dest = ops.length >= 2 ? ops[ops.length - 1] : undefined;
    const sources = dest ? ops.slice(0, -1) : ops;
    for (const s of sources) {
      if (isRemote(s)) continue;
      const filter = recursive ? filterOf?.(p, s, cx) : undefined;
      const walk = { scope, ...(filter ? { filter } : {}) };
      if (removeSources) cx.write(s, walk);
      else cx.read(s, { ...walk, ...(followLinks ? { followLinks } : {}) });
    }
    if (dest && !isRemote(dest)) cx.write(dest, { scope });
  };
}

/** rsync 3.2 options (`rsync --help`): short options that take a value, long ones, long flags. */
export const RSYNC_SPEC: ArgSpec = {
  short: 'eBfMT',
  long: [
    'rsh',
    'rsync-path',
    'exclude',
    'exclude-from',
    'include',
    'include-from',
    'files-from',
    'filter',
    'log-file',
    'log-file-format',
    'backup-dir',
    'suffix',
    'temp-dir',
    'partial-dir',
    'compare-dest',
    'copy-dest',
    'link-dest',
    'password-file',
    'chmod',
    'chown',
    'usermap',
    'groupmap',
    'timeout',
    'contimeout',
    'port',
    'bwlimit',
    'max-size',
    'min-size',
    'max-delete',
    'block-size',
    'modify-window',
    'out-format',
    'info',
    'debug',
    'compress-level',
    'compress-choice',
    'checksum-choice',
    'iconv',
    'write-batch',
    'only-write-batch',
    'read-batch',
    'sockopts',
    'outbuf',
    'remote-option',
    'stop-after',
    'stop-at',
    'mkpath',
  ],
  flags: [
    'recursive',
    'archive',
    'remove-source-files',
    'delete',
    'dry-run',
    'copy-links',
    'copy-dirlinks',
    'copy-unsafe-links',
  ],
};

const rsync = remoteCopy(
  RSYNC_SPEC,
  ['-r', '-a', '--recursive', '--archive'],
  {
    '--exclude-from': 'read',
    '--include-from': 'read',
    '--files-from': 'read',
    '--log-file': 'write',
    '--backup-dir': 'write',
    '--temp-dir': 'write',
    '-T': 'write',
    '--partial-dir': 'write',
    '--password-file': 'read',
    '--compare-dest': 'read',
    '--copy-dest': 'read',
    '--link-dest': 'read',
    '--write-batch': 'write',
    '--only-write-batch': 'write',
    '--read-batch': 'read',
  },
  ['-e', '--rsh', '--rsync-path'],
  rsyncFilter,
);

const scp = remoteCopy(SCP, ['-r'], { '-F': 'read', '-i': 'read' }, ['-S', '-D']);

export const copyMove: Record<string, CommandHandler> = { cp, mv, install, ln, dd, rsync, scp };
