import type { SubtreeFilter } from '@toolgate/core';
import type { CommandContext, CommandHandler } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { fnmatch } from '../fnmatch.js';
import { literal } from '../spec.js';
import { extractMembers, memberPath, zipMembers } from './archiveMembers.js';

// Info-ZIP zip 3.0 and unzip 6.0 have their own option parsers (zip -h2, unzip -hh): multi-letter options
// (`-TT cmd`, `-lf path`, `-sb`) that getopt tables cannot say, so they are read here, as data below.

/** zip options that take the next word (or the rest of the word) as their value. */
const ZIP_ARG = new Set(['t', 'tt', 'b', 'n', 'O', 'P', 's', 'Z', 'ds', 'lf', 'TT', 'ws']);
/** zip options without a value (single letters may be bundled: `-rq`). */
const ZIP_FLAG_LETTERS = 'ufdUrmjqvczoyklgRTFDAJXSLeh0123456789$!@';
const ZIP_FLAG_WORDS = new Set(
  [
    'FS',
    'FF',
    'DF',
    'AS',
    'AC',
    'sf',
    'su',
    'sU',
    'UN',
    'll',
    'la',
    'li',
    'sp',
    'sb',
    'sv',
    'db',
    'dc',
    'dd',
  ].concat(['dg', 'du', 'dv', 'MM', 'nw', 'sc', 'sd', 'so', 'ic', 'RE', 'h2']),
);
/** zip long options: value-taking ones map to their short form. */
const ZIP_LONG_ARG: Record<string, string> = {
  'from-date': 't',
  'before-date': 'tt',
  'temp-path': 'b',
  suffixes: 'n',
  out: 'O',
  'output-file': 'O',
  password: 'P',
  'split-size': 's',
  'compression-method': 'Z',
  'dot-size': 'ds',
  'logfile-path': 'lf',
  'unzip-command': 'TT',
};
const ZIP_LONG_FLAG = new Set(
  'update freshen delete recurse-paths recurse-patterns move junk-paths quiet verbose test fix fixfix grow adjust-sfx symlinks no-extra names-stdin encrypt filesync copy-entries display-bytes display-counts display-dots display-globaldots display-usize display-volume log-append log-info must-match no-wild no-dir-entries help license version'.split(
    ' ',
  ),
);

interface ZipArgs {
  opts: Map<string, Field | true>;
  operands: Field[];
  unknown: string[];
  /** `-x` patterns, and `-i` patterns (only what they match is added). */
  excludes: Field[];
  includes: Field[];
}

function parseZip(args: readonly Field[]): ZipArgs {
  const opts = new Map<string, Field | true>();
  const operands: Field[] = [];
  const unknown: string[] = [];
  const excludes: Field[] = [];
  const includes: Field[] = [];
  for (let i = 0; i < args.length; i++) {
    const f = args[i]!;
    const v = f.value;
    if (f.uncertain !== undefined || !v.startsWith('-') || v === '-') {
      operands.push(f);
      continue;
    }
    if (v === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    // `-i`/`-x` take a list of patterns up to the next option; `-i@F`/`-x@F` read the list from F.
    if (/^-[ix]$|^--(include|exclude)$/.test(v)) {
      const into = v === '-x' || v === '--exclude' ? excludes : includes;
      while (i + 1 < args.length && !args[i + 1]!.value.startsWith('-')) into.push(args[++i]!);
      continue;
    }
    const at = /^-[ix]@(.+)$/.exec(v);
    if (at) {
      opts.set('@list', { ...f, value: at[1]!, glob: -1 });
      continue;
    }
    if (v.startsWith('--')) {
      const [name, value] = v.slice(2).split(/=(.*)/s) as [string, string | undefined];
      const short = ZIP_LONG_ARG[name];
      if (short) opts.set(short, value !== undefined ? { ...f, value, glob: -1 } : (args[++i] ?? true));
      else if (ZIP_LONG_FLAG.has(name)) opts.set(name, true);
      else unknown.push(v);
      continue;
    }
    const word = v.slice(1);
    if (ZIP_ARG.has(word)) {
      opts.set(word, args[++i] ?? true);
      continue;
    }
    if (ZIP_FLAG_WORDS.has(word)) {
      opts.set(word, true);
      continue;
    }
    for (let k = 0; k < word.length; k++) {
      const c = word[k]!;
      if (ZIP_ARG.has(c)) {
        const rest = word.slice(k + 1);
        opts.set(c, rest !== '' ? { ...f, value: rest, glob: -1 } : (args[++i] ?? true));
        break;
      }
      if (ZIP_FLAG_LETTERS.includes(c)) opts.set(c, true);
      else unknown.push(`-${c}`);
    }
  }
  return { opts, operands, unknown, excludes, includes };
}

/**
 * What `-x` and `-i` patterns leave out of a recursive operand, as zip(1) matches them: against the name
 * stored in the archive (the operand's path, `./` dropped, then the path beneath it), wildcards crossing `/`
 * unless `-ws`. Directories are always walked (a pattern may match only some of what lies beneath). No
 * filter when a pattern is not known or comes from a file (`-x@F`).
 */
function zipFilter(z: ZipArgs, operand: Field): SubtreeFilter | undefined {
  if (z.excludes.length === 0 && z.includes.length === 0) return undefined;
  if (z.opts.has('ws') || z.opts.has('@list')) return undefined;
  if ([...z.excludes, ...z.includes, operand].some((f) => f.uncertain !== undefined)) return undefined;
  const prefix = operand.value.replace(/^(\.\/)+/, '').replace(/\/+$/, '');
  const stored = (rel: string) => (prefix === '' || prefix === '.' ? rel : `${prefix}/${rel}`);
  const ex = z.excludes.map((f) => fnmatch(f.value));
  const inc = z.includes.map((f) => fnmatch(f.value));
  return {
    name: `zip ${[...z.excludes.map((f) => `-x ${f.raw}`), ...z.includes.map((f) => `-i ${f.raw}`)].join(' ')}`,
    skips(rel, isDir) {
      if (isDir) return false;
      const name = stored(rel);
      return ex.some((r) => r.test(name)) || (inc.length > 0 && !inc.some((r) => r.test(name)));
    },
  };
}

const field = (x: Field | true | undefined): Field | undefined => (x === true ? undefined : x);

/**
 * zip ARCHIVE FILES…: the archive is written, the files read — subtrees with `-r`, following symlinks
 * (zip stores what a link points to unless `-y`; checked under strace). `-m` deletes what it stored.
 */
export const zip: CommandHandler = (cx) => {
  const z = parseZip(cx.args);
  for (const u of z.unknown) cx.uncertain(`zip: option ${u} is not in its table`, 'write', u);
  if (z.opts.has('TT')) cx.uncertain('zip -TT runs a command to test the archive');
  if (z.opts.has('@') || z.opts.has('names-stdin'))
    cx.uncertain('zip -@ takes the file names from stdin', 'read');
  const list = field(z.opts.get('@list'));
  if (list) cx.read(list, { tag: 'list' });
  for (const [k, role] of [
    ['b', 'write'],
    ['O', 'write'],
    ['lf', 'write'],
  ] as const) {
    const f = field(z.opts.get(k));
    if (f) cx.emit(f, role, { tag: k });
  }
  const [archive, ...files] = z.operands;
  if (archive) {
    cx.write(archive, { tag: 'archive' });
    // zip(1): a name whose last component has no extension gets `.zip` (`zip -r out src` writes out.zip).
    if (archive.uncertain === undefined && archive.value !== '-' && !/\.[^/]*$/.test(archive.value))
      cx.write({ ...archive, value: `${archive.value}.zip` }, { tag: 'archive' });
  }
  // `-d`: the operands are entries inside the archive, not files.
  if (z.opts.has('d') || z.opts.has('delete')) return;
  const recursive = z.opts.has('r') || z.opts.has('R') || z.opts.has('recurse-paths');
  const followLinks = recursive && !z.opts.has('y') && !z.opts.has('symlinks');
  const move = z.opts.has('m') || z.opts.has('move');
  for (const f of files) {
    if (move) cx.write(f, { scope: recursive ? 'subtree' : 'path', followFinal: false, tag: 'move' });
    const filter = recursive ? zipFilter(z, f) : undefined;
    cx.read(
      f,
      recursive
        ? { scope: 'subtree', ...(followLinks ? { followLinks } : {}), ...(filter ? { filter } : {}) }
        : {},
    );
  }
};

/** unzip: letters that take no value (unzip -hh). `-d DIR`, `-P PASS` take one; `-x` a list of members. */
const UNZIP_FLAGS = 'ZAcaflptTuvzbBCDEFijJKLMnNoqsSUVWXY$^2h';

/** Wildcards unzip matches itself, in the archive name and in member names (unzip(1), "ARGUMENTS"). */
const UNZIP_WILD = /[*?[]/;

/**
 * The file unzip opens for ARCHIVE: unzip(1) "if [ZIPFILE] is not found, .zip is appended" — strace of
 * unzip 6.0 shows it trying `NAME`, then `NAME.zip`, then `NAME.ZIP` (also after a `.zip` already there).
 * A name with wildcards is matched by unzip itself, each match extracted in turn: not known here.
 */
function unzipArchive(cx: CommandContext, f: Field): Field | { unknown: string } {
  if (f.uncertain !== undefined || f.glob >= 0 || f.under) return f;
  if (UNZIP_WILD.test(f.value))
    return { unknown: `unzip matches the wildcards of ${f.raw} itself, against what exists when it runs` };
  const tries = ['', '.zip', '.ZIP'].map((s) => ({ ...f, value: `${f.value}${s}`, glob: -1 }));
  const found = tries.find((t) => cx.exists(t));
  if (found) return found;
  // None exists now: one the line writes first is what unzip opens.
  for (const t of tries) {
    const r = cx.readBytes(t, 1);
    if ('uncertain' in r && /written by this command line/.test(r.uncertain))
      return { unknown: `${t.value} is written by this command line first` };
  }
  return f;
}

/**
 * Which members unzip extracts: the member operands (all when none) less the `-x` list, matched as unzip
 * matches them — wildcards crossing `/` (unless `-W`), case-insensitively with `-C`. A pattern we cannot
 * read selects every member (an exclusion we cannot read excludes none).
 */
function unzipSelection(
  members: readonly Field[],
  excludes: readonly Field[],
  letters: ReadonlySet<string>,
): ((name: string) => boolean) | undefined {
  if (letters.has('W')) return undefined;
  const nocase = letters.has('C');
  const known = (fs: readonly Field[]) => fs.every((f) => f.uncertain === undefined && !f.under);
  const inc = members.length > 0 && known(members) ? members.map((f) => fnmatch(f.value, nocase)) : [];
  const exc = known(excludes) ? excludes.map((f) => fnmatch(f.value, nocase)) : [];
  if (inc.length === 0 && exc.length === 0) return undefined;
  return (name) => (inc.length === 0 || inc.some((r) => r.test(name))) && !exc.some((r) => r.test(name));
}

/**
 * unzip ARCHIVE [MEMBERS] [-x XMEMBERS] [-d DIR]: extracts under DIR or the cwd; `-l -t -p -v -Z -c -z` read
 * only. Several values of one word (`for f in a.zip b.zip; do unzip "$f"; done` reaches here as both) are
 * each judged as the archive: a later one is no mere member pattern of the first.
 */
export const unzip: CommandHandler = (cx: CommandContext) => {
  const letters = new Set<string>();
  const operands: Field[] = [];
  const excludes: Field[] = [];
  let into: Field | undefined;
  const args = cx.args;
  for (let i = 0; i < args.length; i++) {
    const f = args[i]!;
    const v = f.value;
    if (f.uncertain !== undefined || !v.startsWith('-') || v.length < 2) {
      operands.push(f);
      continue;
    }
    if (v === '-x') {
      while (i + 1 < args.length && !args[i + 1]!.value.startsWith('-')) excludes.push(args[++i]!);
      continue;
    }
    for (let k = 1; k < v.length; k++) {
      const c = v[k]!;
      if (c === 'd' || c === 'P') {
        const rest = v.slice(k + 1);
        const value = rest !== '' ? { ...f, value: rest, glob: -1 } : args[++i];
        if (c === 'd') into = value;
        break;
      }
      // `-:` keeps `../` in member names: they may land anywhere.
      if (c === ':') cx.uncertain('unzip -: extracts members outside the target directory');
      else if (!UNZIP_FLAGS.includes(c))
        cx.uncertain(`unzip: option -${c} is not in its table`, 'write', `-${c}`);
      letters.add(c);
    }
  }
  const [first] = operands;
  const archives = first ? operands.filter((f) => f === first || f.raw === first.raw) : [];
  const members = operands.filter((f) => !archives.includes(f));
  const readOnly = ['l', 't', 'p', 'v', 'Z', 'c', 'z'].some((c) => letters.has(c));
  const dir = into ?? literal('.');
  const keep = unzipSelection(members, excludes, letters);
  if (archives.length === 0)
    extractMembers(cx, undefined, dir, { read: zipMembers, place: memberPath, what: 'unzip' });
  for (const given of archives) {
    const archive = unzipArchive(cx, given);
    // With wildcards unzip lists the directory and opens every match (strace): read as a glob there.
    const wild = given.uncertain === undefined && given.glob < 0 ? given.value.search(UNZIP_WILD) : -1;
    cx.read('unknown' in archive ? (wild >= 0 ? { ...given, glob: wild } : given) : archive, {
      tag: 'archive',
    });
    if (readOnly) continue;
    // `-j` junks the directories: every member lands in DIR by its last name.
    extractMembers(cx, 'unknown' in archive ? given : archive, dir, {
      read: zipMembers,
      place: (name) => {
        const at = memberPath(name);
        return at && letters.has('j') ? at.slice(at.lastIndexOf('/') + 1) : at;
      },
      what: 'unzip',
      ...('unknown' in archive ? { unknown: archive.unknown } : {}),
      ...(keep ? { keep } : {}),
    });
  }
};
