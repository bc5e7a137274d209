import type { CommandContext, CommandHandler } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { has, type ParsedArgs, parseArgs, values } from '../argv.js';
import { emitOptions, literal } from '../spec.js';
import { extractMembers, memberPath, tarMembers } from './archiveMembers.js';
import { TAR } from './archiveOptions.js';
import { tarExcludes, tarExtractExcludes } from './tarExclude.js';

/** Names in a `-T` list beyond this are not an everyday archive: uncertain instead of slow. */
const MAX_NAMES = 1000;

/** Options that make tar run another program (tar(1), "Compression options", "Device selection"…). */
const RUNS = new Set([
  '-I',
  '--use-compress-program',
  '--to-command',
  '-F',
  '--info-script',
  '--new-volume-script',
  '--rsh-command',
  '--rmt-command',
]);

/** Old-style bundled letters (`tar czf a.tgz dir`): `-c -z -f a.tgz`, the arguments following in order. */
function expandOldStyle(args: readonly Field[]): Field[] {
  const first = args[0];
  if (!first || first.uncertain !== undefined || !/^[A-Za-z0-9]+$/.test(first.value)) return [...args];
  const out: Field[] = [];
  let next = 1;
  for (const c of first.value) {
    out.push({ ...first, value: `-${c}`, glob: -1 });
    if ((TAR.short ?? '').includes(c) && args[next]) out.push(args[next++]!);
  }
  return [...out, ...args.slice(next)];
}

/** The value of `--one-top-level[=DIR]`, which getopt only takes attached (the table lists it as a flag). */
function oneTopLevel(args: readonly Field[]): Field | undefined {
  for (const f of args) {
    const m = /^--(one-t[a-z-]*)=(.*)$/.exec(f.value);
    if (m && 'one-top-level'.startsWith(m[1]!)) return { ...f, value: m[2]!, glob: -1, tilde: false };
  }
  return undefined;
}

/** The member names a `-T LIST` file holds (one a line, or NUL-separated with `--null`), or why not. */
function namesFrom(cx: CommandContext, list: Field, p: ParsedArgs): Field[] | string {
  if (list.value === '-') return 'the names come from stdin';
  const content = cx.readContent(list);
  if ('uncertain' in content) return content.uncertain;
  const names = content.text.split(has(p, '--null') ? '\0' : '\n').filter((n) => n !== '');
  if (names.length > MAX_NAMES) return `more than ${MAX_NAMES} names`;
  // Without --verbatim-files-from a line starting with `-` is an option (`-C /etc`, `--to-command=…`).
  if (!has(p, '--verbatim-files-from') && names.some((n) => n.startsWith('-')))
    return 'the list holds options';
  return names.map(literal);
}

/**
 * tar: `-c/-r/-u` write the archive and read the members (subtrees, following symlinks only with `-h`);
 * `-x` reads the archive and writes under `-C DIR`; `-t` reads the archive; `-d` also reads the members.
 */
export const tar: CommandHandler = (cx) => {
  const argv = expandOldStyle(cx.args);
  const p = parseArgs(argv, TAR);
  // `--files-from` is read here, at check time (emitOptions would call it unknown).
  emitOptions(
    cx,
    { ...p, opts: p.opts.filter((o) => o.name !== '--files-from') },
    {
      '-X': 'read',
      '--exclude-from': 'read',
      '--index-file': 'write',
      '--listed-incremental': 'write',
      '-g': 'write',
      '--volno-file': 'write',
    },
  );
  for (const o of p.opts) {
    if (RUNS.has(o.name) || (o.name === '--checkpoint-action' && /exec/i.test(o.value?.value ?? 'exec')))
      cx.uncertain(`tar ${o.name} runs a program we do not analyse`);
    // `-N`/`--newer`/`--after-date`: a value starting with `/` or `.` is a file whose time is compared.
    if (['-N', '--newer', '--after-date'].includes(o.name) && o.value && /^[/.~]/.test(o.value.value))
      cx.emit(o.value, 'list', { tag: 'newer' });
  }
  const archive = values(p, '-f', '--file')[0];
  // Several values of one word (`for f in a.tar b.tar; do tar xf "$f"; done`) reach here as `-f a.tar b.tar`:
  // each is judged as the archive, not the later ones as mere member names.
  const alternatives = archive
    ? p.operands.filter((f) => f.raw === archive.raw && f.uncertain === undefined && f.glob < 0)
    : [];
  const create = has(p, '-c', '--create', '-r', '--append', '-u', '--update');
  const extract = has(p, '-x', '--extract', '--get');
  const compare = has(p, '-d', '--diff', '--compare');
  const catenate = has(p, '-A', '--catenate', '--concatenate');
  if (archive && archive.value !== '-') {
    // `host:file` is opened through rsh/ssh unless --force-local.
    const remote = /^[^/]*:/.test(archive.value) && !has(p, '--force-local');
    if (remote) cx.uncertain(`tar -f ${archive.raw} runs a remote shell`);
    else if (create || catenate || has(p, '--delete'))
      for (const a of [archive, ...alternatives]) cx.write(a, { tag: 'archive' });
    else for (const a of [archive, ...alternatives]) cx.read(a, { tag: 'archive' });
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
  let members = [...p.operands];
  for (const list of values(p, '-T', '--files-from')) {
    cx.read(list, { tag: 'files-from' });
    const names = namesFrom(cx, list, p);
    if (typeof names === 'string') cx.uncertain(`tar -T ${list.raw}: ${names}`, 'read');
    else members = [...members, ...names];
  }
  if (catenate) {
    for (const m of members) cx.read(m, { tag: 'archive' });
  } else if (create) {
    const follow = has(p, '-h', '--dereference');
    const remove = has(p, '--remove-files');
    const excludes = tarExcludes(argv, p.operands);
    for (const m of members) {
      const f = under(m);
      const filter = excludes.get(m);
      if (filter?.excludesRoot) continue;
      const walk = { scope: 'subtree' as const, ...(filter ? { filter } : {}) };
      if (remove) cx.write(f, { ...walk, followFinal: false, tag: 'remove-files' });
      else cx.read(f, { ...walk, tag: 'member', ...(follow ? { followLinks: true } : {}) });
    }
  } else if (compare) {
    cx.read(base ?? literal('.'), { scope: 'subtree', tag: 'compare' });
  } else if (extract && !has(p, '-O', '--to-stdout')) {
    // Members named on the command line are still only known to lie beneath the extraction directory.
    const into = base ?? literal('.');
    // The members' names are in the archive, read here: a `.env` among them is a write of it.
    const strip = values(p, '--strip-components', '--strip').at(-1);
    const renames = p.opts.some((o) => o.name === '--transform' || o.name === '--xform');
    const badStrip = strip !== undefined && !/^\d+$/.test(strip.value);
    const keep = tarExtractExcludes(argv, p.operands);
    for (const a of archive ? [archive, ...alternatives] : [undefined])
      extractMembers(cx, a, into, {
        read: tarMembers,
        place: (name) => memberPath(name, strip ? Number(strip.value) : 0),
        what: 'tar -x',
        ...(renames
          ? { unknown: '--transform renames them' }
          : badStrip
            ? { unknown: '--strip-components is not known' }
            : {}),
        ...(keep ? { keep: (name: string) => !keep(name) } : {}),
      });
    const top = oneTopLevel(cx.args);
    if (top && top.value !== '') {
      const dir = under(top);
      cx.write(dir, { scope: 'subtree', tag: 'one-top-level' });
      cx.taint(dir);
    }
    // `-P` keeps absolute names and `..`: members may land anywhere.
    if (has(p, '-P', '--absolute-names')) cx.uncertain('tar -P extracts members to absolute paths');
  }
};
