import type { CommandContext, CommandHandler } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { type ArgSpec, parseArgs } from '../argv.js';
import { literal } from '../spec.js';
import { createdDirs, freeName, inDir, urlParts, wgetFileName } from './urlName.js';
import { WGETRC, type WgetrcCommand, wgetConfigCommands, wgetrcCommand } from './wgetConfig.js';
import { WGET_LONG_ARG, WGET_LONG_FLAG, WGET_SHORT_ARG, WGET_SHORT_FLAG } from './wgetOptions.js';

const WGET: ArgSpec = {
  short: WGET_SHORT_ARG,
  shortFlags: WGET_SHORT_FLAG,
  long: WGET_LONG_ARG,
  flags: WGET_LONG_FLAG,
};

/**
 * The wgetrc command each option stands for (wget's main.c option table): wget applies options exactly as
 * these commands, after its config files. A flag is `[command, value]`; `-n X` is `-nX`. Options not here
 * change nothing on disk (their commands are `harmless` in `WGETRC`).
 */
const OPTION_COMMAND: Readonly<Record<string, string | readonly [string, string]>> = {
  '-O': 'outputdocument',
  '--output-document': 'outputdocument',
  '-P': 'dirprefix',
  '--directory-prefix': 'dirprefix',
  '--default-page': 'defaultpage',
  '--cut-dirs': 'cutdirs',
  '--restrict-file-names': 'restrictfilenames',
  '--backups': 'backups',
  '-o': 'logfile',
  '--output-file': 'logfile',
  '-a': 'logfileappend',
  '--append-output': 'logfileappend',
  '--save-cookies': 'savecookies',
  '--rejected-log': 'rejectedlog',
  '--warc-tempdir': 'warctempdir',
  '--hsts-file': 'hstsfile',
  '--warc-file': 'warcfile',
  '-i': 'input',
  '--input-file': 'input',
  '--load-cookies': 'loadcookies',
  '--post-file': 'postfile',
  '--body-file': 'bodyfile',
  '--certificate': 'certificate',
  '--private-key': 'privatekey',
  '--ca-certificate': 'cacertificate',
  '--ca-directory': 'cadirectory',
  '--crl-file': 'crlfile',
  '--warc-dedup': 'warcdedup',
  '--use-askpass': 'useaskpass',
  '-x': ['dirstruct', 'on'],
  '--force-directories': ['dirstruct', 'on'],
  '-nd': ['dirstruct', 'off'],
  '--no-directories': ['dirstruct', 'off'],
  '-nH': ['addhostdir', 'off'],
  '--no-host-directories': ['addhostdir', 'off'],
  '--protocol-directories': ['protocoldirectories', 'on'],
  '-r': ['recursive', 'on'],
  '--recursive': ['recursive', 'on'],
  '-m': ['mirror', 'on'],
  '--mirror': ['mirror', 'on'],
  '-p': ['pagerequisites', 'on'],
  '--page-requisites': ['pagerequisites', 'on'],
  '--content-disposition': ['contentdisposition', 'on'],
  '--trust-server-names': ['trustservernames', 'on'],
  '-E': ['adjustextension', 'on'],
  '--adjust-extension': ['adjustextension', 'on'],
  '-N': ['timestamping', 'on'],
  '--timestamping': ['timestamping', 'on'],
  '-c': ['continue', 'on'],
  '--continue': ['continue', 'on'],
  '-nc': ['noclobber', 'on'],
  '--no-clobber': ['noclobber', 'on'],
  '-b': ['background', 'on'],
  '--background': ['background', 'on'],
  '--spider': ['spider', 'on'],
  '-k': ['convertlinks', 'on'],
  '--convert-links': ['convertlinks', 'on'],
  '-K': ['backupconverted', 'on'],
  '--backup-converted': ['backupconverted', 'on'],
  '--delete-after': ['deleteafter', 'on'],
};

/** Where downloads land and how they are named, after every wgetrc command and option. */
interface Settings {
  output?: Field;
  prefix: Field;
  defaultPage: string;
  cutDirs: number | null;
  restrict: string;
  backups: number | null;
  flags: Map<string, boolean | null>;
  /** A log file is named (`-o`, `-a`, `logfile`). */
  logged?: boolean;
}

const on = (s: Settings, k: string): boolean | null => s.flags.get(k) ?? false;

function bool(v: string): boolean | null {
  if (/^(on|yes|1|true)$/i.test(v)) return true;
  if (/^(off|no|0|false)$/i.test(v)) return false;
  return null;
}

/** Applies one command: files are accesses now, settings are kept for naming the downloads. */
function apply(cx: CommandContext, s: Settings, c: WgetrcCommand): void {
  const role = WGETRC[c.key];
  const v = c.value;
  const known = v.uncertain === undefined;
  switch (role) {
    case undefined:
      cx.uncertain(`wget command ${c.key} is not in its table`, 'write', v.raw);
      return;
    case 'harmless':
      return;
    case 'read':
    case 'write':
      if (c.key === 'logfile' || c.key === 'logfileappend') s.logged = true;
      if (v.value !== '-' && v.value !== '') cx.emit(v, role, { tag: c.key });
      return;
    case 'hsts-file':
      cx.read(v, { tag: c.key });
      cx.write(v, { tag: c.key });
      return;
    case 'warc-file':
      // wget writes PREFIX.warc.gz (and PREFIX-meta.warc.gz, PREFIX.cdx) beside the prefix.
      cx.write({ ...v, value: `${v.value}*`, glob: v.value.length }, { tag: c.key });
      return;
    case 'input':
      if (v.value !== '-' && !/^[a-z]+:\/\//i.test(v.value)) cx.read(v, { tag: 'input-file' });
      s.flags.set('input', true);
      return;
    case 'runs':
      cx.uncertain(`wget ${c.key} runs a program`, 'write', v.raw);
      return;
    case 'output-document':
      s.output = v.value === '' ? undefined : v;
      return;
    case 'dir-prefix':
      s.prefix = v.value === '' ? literal('.') : v;
      return;
    case 'default-page':
      if (known && !v.value.includes('/')) s.defaultPage = v.value;
      else cx.uncertain('wget --default-page names the file of a URL ending in /', 'write', v.raw);
      return;
    case 'cut-dirs':
      s.cutDirs = known && /^\d+$/.test(v.value) ? Number(v.value) : null;
      return;
    case 'restrict-file-names':
      s.restrict = known ? v.value.toLowerCase() : '?';
      return;
    case 'backups':
      s.backups = known && /^\d+$/.test(v.value) ? Number(v.value) : null;
      return;
    case 'flag':
      s.flags.set(c.key, known ? bool(v.value) : null);
      if (c.key === 'mirror' && s.flags.get('mirror') !== false)
        s.flags.set('recursive', s.flags.get('mirror')!);
      if (c.key === 'adjustextension' || c.key === 'htmlextension')
        s.flags.set('adjustextension', s.flags.get(c.key)!);
  }
}

/** The option as the wgetrc command wget runs for it, if it stands for one. */
function asCommand(o: { name: string; value?: Field }): WgetrcCommand | undefined {
  const name = o.name === '-n' && o.value ? `-n${o.value.value}` : o.name;
  const c = OPTION_COMMAND[name];
  if (c === undefined) return undefined;
  if (typeof c !== 'string') return { key: c[0], value: { ...literal(c[1]), raw: name } };
  return o.value ? { key: c, value: o.value } : undefined;
}

/**
 * wget: its config files (`wgetConfig.ts`) and then its options, each as the wgetrc command it stands for
 * (`-e CMD` too): files named by commands are read or written; downloads go to `-O FILE`, else one file a
 * URL named by `urlParts`/`wgetFileName` in `-P DIR` (with `-x`: under host and path directories, `-nH`,
 * `--cut-dirs`, `--protocol-directories`), `.1`, `.2`… when taken; recursion, `-i`, and names the server
 * picks (`--content-disposition`, `--trust-server-names`) write names not known beneath the prefix.
 */
const wget: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, WGET);
  for (const o of p.unknown) {
    if (!(o.startsWith('--no-') && WGET_LONG_FLAG.includes(o.slice(5))))
      cx.uncertain(`wget: option ${o} is not in its table`, 'write', o);
  }
  if (p.strays.length > 0) cx.unknownOperands(p.strays);
  const s: Settings = {
    prefix: literal('.'),
    defaultPage: 'index.html',
    cutDirs: 0,
    restrict: 'unix',
    backups: 0,
    flags: new Map(),
  };
  for (const c of wgetConfigCommands(cx, p.opts)) apply(cx, s, c);
  for (const o of p.opts) {
    if ((o.name === '-e' || o.name === '--execute') && o.value) {
      const c = o.value.uncertain === undefined ? wgetrcCommand(o.value.value, o.value) : undefined;
      if (c) apply(cx, s, c);
      else cx.uncertain(`wget -e ${o.value.raw} is not understood`, 'write', o.value.raw);
      continue;
    }
    const c = asCommand(o);
    if (c) apply(cx, s, c);
  }
  downloads(cx, s, p.operands);
};

function downloads(cx: CommandContext, s: Settings, urls: readonly Field[]): void {
  // `-b` without a log file logs to wget-log (wget-log.1 … when taken) in the cwd.
  if (on(s, 'background') !== false && !s.logged)
    cx.write(freeName(cx, literal('.'), 'wget-log'), { tag: 'background-log' });
  if (on(s, 'spider') === true) return;
  if (s.output) {
    if (s.output.value !== '-') cx.write(s.output, { tag: 'output' });
    return;
  }
  const files = downloadFiles(cx, s, urls);
  if (typeof files === 'string') {
    cx.write(s.prefix, { scope: 'subtree', tag: 'download', unknownNames: files });
    return;
  }
  const overwrite =
    on(s, 'timestamping') === true || on(s, 'continue') === true || on(s, 'noclobber') === true;
  for (const f of files) {
    const names = [f.value];
    if (on(s, 'adjustextension') !== false) names.push(`${f.value}.html`, `${f.value}.css`);
    for (const n of names) {
      const at = { ...f, value: n };
      const slash = n.lastIndexOf('/');
      const written = overwrite
        ? at
        : freeName(cx, slash < 0 ? literal('.') : { ...f, value: n.slice(0, slash) }, n.slice(slash + 1));
      cx.write(written, { tag: 'download' });
      // `--backups=N` renames NAME to NAME.1 … NAME.N first; `-K` keeps NAME.orig before converting links.
      for (let k = 1; k <= (s.backups ?? 0); k++) cx.write({ ...at, value: `${n}.${k}` }, { tag: 'backups' });
      if (on(s, 'backupconverted') !== false && on(s, 'convertlinks') !== false)
        cx.write({ ...at, value: `${n}.orig` }, { tag: 'backup-converted' });
    }
  }
}

/** The file each URL is saved as, or why the names are not known. */
function downloadFiles(cx: CommandContext, s: Settings, urls: readonly Field[]): Field[] | string {
  for (const k of ['recursive', 'pagerequisites', 'contentdisposition', 'trustservernames', 'input'])
    if (on(s, k) !== false) return `wget ${k}: the names come from the server`;
  if (s.cutDirs === null || s.backups === null) return 'wget names the files from options not known';
  const dirstruct = on(s, 'dirstruct');
  const hostDir = s.flags.get('addhostdir') ?? true;
  const files: Field[] = [];
  for (const u of urls) {
    const parts = urlParts(u, false);
    let name = parts ? wgetFileName(parts, s.defaultPage) : undefined;
    if (name !== undefined && s.restrict !== 'unix' && s.restrict !== 'nocontrol') {
      if (s.restrict === 'lowercase') name = name.toLowerCase();
      else if (s.restrict === 'uppercase') name = name.toUpperCase();
      else name = undefined;
    }
    if (!parts || name === undefined || dirstruct === null || hostDir === null)
      return 'wget names the file from a URL not known';
    let dir = s.prefix;
    if (dirstruct) {
      const path = [
        ...(on(s, 'protocoldirectories') ? [parts.scheme] : []),
        ...(hostDir ? [parts.host] : []),
        ...parts.dirs.slice(s.cutDirs),
      ];
      if (path.some((d) => d === '' || d === '.' || d === '..' || /[%\\]/.test(d)))
        return 'wget names directories from a URL it rewrites';
      for (const d of path) dir = inDir(dir, d);
      createdDirs(cx, inDir(dir, name));
    }
    files.push(inDir(dir, name));
  }
  // Two URLs of one name: the second lands as `.1` of a file the first has just made.
  if (new Set(files.map((f) => f.value)).size !== files.length) return 'two URLs of one name';
  return files;
}

export const wgetFamily: Record<string, CommandHandler> = { wget };
