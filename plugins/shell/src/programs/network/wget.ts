import type { CommandHandler } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { type ArgSpec, has, parseArgs } from '../argv.js';
import { emitRole, literal, type Role } from '../spec.js';
import { freeName, urlFileName } from './urlName.js';
import { WGET_LONG_ARG, WGET_LONG_FLAG, WGET_SHORT_ARG, WGET_SHORT_FLAG } from './wgetOptions.js';

const WGET: ArgSpec = {
  short: WGET_SHORT_ARG,
  shortFlags: WGET_SHORT_FLAG,
  long: WGET_LONG_ARG,
  flags: WGET_LONG_FLAG,
};

// Options naming local files (wget(1), 1.21).
const FILE_OPTS: Readonly<Record<string, Role>> = {
  '-o': 'write',
  '--output-file': 'write',
  '-a': 'write',
  '--append-output': 'write',
  '--save-cookies': 'write',
  '--rejected-log': 'write',
  '--hsts-file': 'write',
  '--warc-cdx': 'write',
  '--warc-tempdir': 'write',
  '--load-cookies': 'read',
  '--post-file': 'read',
  '--body-file': 'read',
  '--certificate': 'read',
  '--private-key': 'read',
  '--ca-certificate': 'read',
  '--ca-directory': 'read',
  '--crl-file': 'read',
  '--warc-dedup': 'read',
  '--config': 'read',
};

// `.wgetrc` commands `-e` may give (wget info "Wgetrc Commands"), by the option they stand for. Keys are
// compared without `_`/`-` and case, as wget does. A command not listed here is uncertain.
const WGETRC: Readonly<Record<string, string>> = {
  outputdocument: '-O',
  dirprefix: '-P',
  logfile: '-o',
  loadcookies: '--load-cookies',
  savecookies: '--save-cookies',
  postfile: '--post-file',
  bodyfile: '--body-file',
  input: '-i',
  certificate: '--certificate',
  privatekey: '--private-key',
  cacertificate: '--ca-certificate',
  cadirectory: '--ca-directory',
  crlfile: '--crl-file',
  hstsfile: '--hsts-file',
  warcfile: '--warc-file',
  rejectedlog: '--rejected-log',
};
const WGETRC_HARMLESS = new Set(
  `robots tries timeout wait waitretry randomwait verbose quiet useragent checkcertificate httpsonly recursive
   reclevel noparent mirror timestamping continue noclobber limitrate quota retryconnrefused header referer
   httpuser httppassword user password proxyuser proxypassword useproxy httpproxy httpsproxy ftpproxy noproxy
   maxredirect contentdisposition adjustextension convertlinks pagerequisites spanhosts domains excludedomains
   accept reject includedirectories excludedirectories dirstruct addhostdir cutdirs protocoldirectories
   serverresponse spider inet4only inet6only dnstimeout connecttimeout readtimeout cache cookies
   keepsessioncookies iri localencoding remoteencoding restrictfilenames compression showprogress progress`.split(
    /\s+/,
  ),
);

/**
 * wget: downloads go to `-O FILE`, else under `-P DIR` or the cwd (a subtree: `-r`/`-x` create directories);
 * `-i FILE`, cookie, certificate and body files are read, logs written; `-e` wgetrc commands are read
 * from a table (`output_document=/etc/x` is `-O /etc/x`); `--use-askpass` runs a program; `--config`
 * files hold more commands (uncertain).
 */
const wget: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, WGET);
  for (const o of p.unknown) {
    if (!(o.startsWith('--no-') && WGET_LONG_FLAG.includes(o.slice(5))))
      cx.uncertain(`wget: option ${o} is not in its table`, 'write', o);
  }
  if (p.strays.length > 0) cx.unknownOperands(p.strays);
  // Options as wget will see them, with `-e` commands turned into the options they stand for.
  const opts: { name: string; value: Field }[] = [];
  for (const o of p.opts) {
    if (!o.value) continue;
    if (o.name === '-e' || o.name === '--execute') {
      const m = /^\s*([A-Za-z_-]+)\s*=\s*(.*?)\s*$/s.exec(o.value.value);
      const key = m?.[1]?.replace(/[_-]/g, '').toLowerCase();
      if (!m || o.value.uncertain !== undefined || key === undefined) {
        cx.uncertain(`wget -e ${o.value.raw} is not understood`, 'write', o.value.raw);
        continue;
      }
      const as = WGETRC[key];
      if (as)
        opts.push({ name: as, value: { ...o.value, value: m[2]!, glob: -1, tilde: m[2]!.startsWith('~') } });
      else if (!WGETRC_HARMLESS.has(key))
        cx.uncertain(`wget -e ${key} is not in its table`, 'write', o.value.raw);
      continue;
    }
    opts.push({ name: o.name, value: o.value });
  }
  for (const { name, value } of opts) {
    const role = FILE_OPTS[name];
    if (role && value.value !== '-') emitRole(cx, value, role, { tag: name.replace(/^-+/, '') });
    if (name === '--hsts-file') cx.read(value, { tag: 'hsts-file' });
    if (name === '--config') cx.uncertain('a wget config file holds more commands', 'write', value.raw);
    if (name === '--use-askpass') cx.uncertain('wget --use-askpass runs a program', 'write', value.raw);
    if (
      (name === '-i' || name === '--input-file') &&
      value.value !== '-' &&
      !/^[a-z]+:\/\//i.test(value.value)
    )
      cx.read(value, { tag: 'input-file' });
    if (name === '--warc-file') {
      // wget writes PREFIX.warc.gz (and PREFIX-meta.warc.gz, PREFIX.cdx) beside the prefix.
      cx.write({ ...value, value: `${value.value}*`, glob: value.value.length }, { tag: 'warc-file' });
    }
  }
  if (
    has(p, '-b', '--background') &&
    !opts.some((o) => ['-o', '--output-file', '-a', '--append-output'].includes(o.name))
  )
    cx.write(literal('wget-log'), { tag: 'background-log' });
  if (has(p, '--spider')) return;
  const out = opts.filter((o) => o.name === '-O' || o.name === '--output-document').at(-1)?.value;
  if (out) {
    if (out.value !== '-') cx.write(out, { tag: 'output' });
    return;
  }
  const dir =
    opts.filter((o) => o.name === '-P' || o.name === '--directory-prefix').at(-1)?.value ?? literal('.');
  // One file per URL named by its last path segment (index.html for none), `.1`, `.2`… when taken — unless
  // an option makes directories, lets the server name it, or takes the URLs from a file.
  const structured =
    has(p, '-r', '--recursive', '-m', '--mirror', '-x', '--force-directories', '-p', '--page-requisites') ||
    has(p, '--content-disposition', '--trust-server-names', '-N', '--timestamping', '-c', '--continue') ||
    opts.some((o) => ['-i', '--input-file', '--cut-dirs', '-nH'].includes(o.name));
  const names = structured ? [] : p.operands.map((u) => urlFileName(u, 'index.html'));
  // Two URLs of one name: the second lands as `.1` of a file the first has just made.
  if (names.length > 0 && names.every((n) => n !== undefined) && new Set(names).size === names.length)
    for (const n of names) cx.write(freeName(cx, dir, n as string), { tag: 'download' });
  else cx.write(dir, { scope: 'subtree', tag: 'download' });
};

export const wgetFamily: Record<string, CommandHandler> = { wget };
