import type { CommandContext, CommandHandler } from '../effects/extractTypes.js';
import type { Field } from '../state/expandWord.js';
import { type ArgSpec, has, type ParsedArgs, parseArgs, values } from './argv.js';
import { emitOptions, followsLinks, literal } from './spec.js';

const TARGET = ['-t', '--target-directory'];

/** Sources and destination of cp/mv/install/ln: `-t DIR`, `-T`, or the last operand. */
function split(p: ParsedArgs): { sources: Field[]; dest: Field | undefined } {
  const target = values(p, ...TARGET)[0];
  if (target) return { sources: p.operands, dest: target };
  if (p.operands.length < 2) return { sources: p.operands, dest: undefined };
  return { sources: p.operands.slice(0, -1), dest: p.operands[p.operands.length - 1] };
}

const CP: ArgSpec = {
  short: 'tS',
  long: [
    'target-directory',
    'suffix',
    'backup',
    'preserve',
    'no-preserve',
    'reflink',
    'sparse',
    'context',
    'update',
  ],
  flags: [
    'recursive',
    'no-target-directory',
    'archive',
    'force',
    'interactive',
    'link',
    'symbolic-link',
    'parents',
    'dereference',
    'no-dereference',
    'remove-destination',
    'strip-trailing-slashes',
    'one-file-system',
    'verbose',
    'attributes-only',
    'copy-contents',
    'no-clobber',
  ],
};

const cp: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, CP);
  emitOptions(cx, p, {});
  const recursive = has(p, '-r', '-R', '-a', '--recursive', '--archive');
  const scope = recursive ? ('subtree' as const) : ('path' as const);
  const { sources, dest } = split(p);
  for (const s of sources) cx.read(s, { scope });
  if (dest) cx.write(dest, { scope });
  else if (sources.length > 0) cx.uncertain('cp without a destination', 'write');
  if (recursive && has(p, '-L', '--dereference')) followsLinks(cx, 'read');
};

const mv: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, { ...CP, short: 'tS' });
  emitOptions(cx, p, {});
  const { sources, dest } = split(p);
  // Moving removes the source name (the link itself, not its target) and everything beneath it.
  for (const s of sources) cx.write(s, { scope: 'subtree', followFinal: false });
  if (dest) cx.write(dest, { scope: 'subtree' });
};

const install: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, {
    short: 'tSgmoZ',
    long: ['target-directory', 'suffix', 'group', 'mode', 'owner', 'context', 'backup', 'strip-program'],
    flags: ['directory', 'no-target-directory'],
  });
  emitOptions(cx, p, {});
  if (has(p, '-d', '--directory')) {
    for (const f of p.operands) cx.write(f);
    return;
  }
  const { sources, dest } = split(p);
  for (const s of sources) cx.read(s);
  if (dest) cx.write(dest, { scope: 'subtree' });
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
  const p = parseArgs(cx.args, {
    short: 'tS',
    long: ['target-directory', 'suffix', 'backup'],
    flags: [
      'symbolic',
      'force',
      'no-dereference',
      'no-target-directory',
      'relative',
      'logical',
      'physical',
      'interactive',
      'verbose',
    ],
  });
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
    if (recursive && has(p, '-L', '--copy-links', '--copy-unsafe-links')) followsLinks(cx, 'read');
    const ops = p.operands;
    const dest = ops.length >= 2 ? ops[ops.length - 1] : undefined;
    const sources = dest ? ops.slice(0, -1) : ops;
    for (const s of sources) {
      if (isRemote(s)) continue;
      if (removeSources) cx.write(s, { scope });
      else cx.read(s, { scope });
    }
    if (dest && !isRemote(dest)) cx.write(dest, { scope });
  };
}

const rsync = remoteCopy(
  {
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
    flags: ['recursive', 'archive', 'remove-source-files', 'delete', 'dry-run'],
  },
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
);

const scp = remoteCopy({ short: 'cFiJloPSDX', long: [] }, ['-r'], { '-F': 'read', '-i': 'read' }, [
  '-S',
  '-D',
]);

export const copyMove: Record<string, CommandHandler> = { cp, mv, install, ln, dd, rsync, scp };
