import { userInfo } from 'node:os';
import type { CommandContext } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { literal } from '../spec.js';
import { readConfig, underVariable } from './configFile.js';

// wget's inputs besides argv (wget info "Startup File", "Wgetrc Commands"; strace of GNU Wget 1.21.3).

/**
 * What a wgetrc command (also `-e CMD`, and every option, which wget turns into one) does to the files wget
 * touches. Keys are compared without `_`/`-` and case, as wget does. `read`/`write`: its value is a file;
 * the named settings change where downloads land or what they are called (`wget.ts`); `runs`: it runs a
 * program; `harmless`: it changes nothing on disk. A command not listed here is uncertain.
 */
export type WgetrcRole =
  | 'read'
  | 'write'
  | 'hsts-file'
  | 'warc-file'
  | 'input'
  | 'runs'
  | 'dir-prefix'
  | 'output-document'
  | 'default-page'
  | 'cut-dirs'
  | 'restrict-file-names'
  | 'backups'
  | 'flag'
  | 'harmless';

export const WGETRC: Readonly<Record<string, WgetrcRole>> = {
  outputdocument: 'output-document',
  dirprefix: 'dir-prefix',
  defaultpage: 'default-page', // the name of a URL ending in `/` (strace: `--default-page=.env` wrote .env)
  cutdirs: 'cut-dirs',
  restrictfilenames: 'restrict-file-names',
  backups: 'backups', // rotates NAME to NAME.1 … NAME.N
  logfile: 'write',
  logfileappend: 'write',
  savecookies: 'write',
  rejectedlog: 'write',
  warctempdir: 'write',
  hstsfile: 'hsts-file',
  warcfile: 'warc-file',
  input: 'input',
  loadcookies: 'read',
  postfile: 'read',
  bodyfile: 'read',
  certificate: 'read',
  privatekey: 'read',
  cacertificate: 'read',
  cadirectory: 'read',
  crlfile: 'read',
  warcdedup: 'read',
  egdfile: 'read',
  randomfile: 'read',
  useaskpass: 'runs',
  // Booleans that change names or places (`on`/`off`, `yes`/`no`, `1`/`0`).
  dirstruct: 'flag', // -x (on) / -nd (off)
  addhostdir: 'flag', // -nH (off)
  protocoldirectories: 'flag',
  recursive: 'flag',
  mirror: 'flag',
  pagerequisites: 'flag',
  contentdisposition: 'flag', // the server names the file
  trustservernames: 'flag', // the last redirect names the file
  adjustextension: 'flag', // appends .html / .css (strace: -E on /a.html.x wrote a.html.x.html)
  htmlextension: 'flag',
  timestamping: 'flag',
  continue: 'flag',
  noclobber: 'flag',
  background: 'flag', // logs to wget-log
  spider: 'flag',
  convertlinks: 'flag',
  backupconverted: 'flag', // NAME.orig
  deleteafter: 'flag',
  ...Object.fromEntries(
    `accept acceptregex alwaysrest askpassword authnochallenge bindaddress bindnoreplace bodydata cache
     certificatetype checkcertificate ciphers compression connecttimeout contentonerror convertfileonly cookies
     debug dnscache dnstimeout domains dotbytes dotsinline dotspacing dotstyle excludedirectories
     excludedomains followftp followtags forcehtml ftppasswd ftppassword ftpproxy ftpscleardataconnection
     ftpsfallbacktoftp ftpsimplicit ftpsresumessl ftpuser glob header hsts httpkeepalive httppasswd
     httppassword httpproxy httpsonly httpsproxy httpuser ifmodifiedsince ignorecase ignorelength ignoretags
     includedirectories inet4only inet6only iri keepbadhash keepsessioncookies limitrate localencoding
     maxredirect method netrc noparent noproxy numtries passiveftp passwd password pinnedpubkey postdata
     preferfamily privatekeytype progress proxypasswd proxypassword proxyuser quiet quota randomwait
     readtimeout reclevel referer regextype reject rejectregex relativeonly remoteencoding reportspeed
     retryconnrefused retryonhosterror retryonhttperror robots saveheaders secureprotocol serverresponse
     showalldnsentries showprogress spanhosts startpos strictcomments timeout tries unlink useproxy useragent
     user useservertimestamps verbose wait waitretry warccdx warccompression warcdigests warcheader warckeeplog
     warcmaxsize xattr`
      .split(/\s+/)
      .map((k): [string, WgetrcRole] => [k, 'harmless']),
  ),
};

/**
 * Environment variables that change what wget touches: `WGETRC` replaces `~/.wgetrc` (a file that does not
 * exist stops wget), `SYSTEM_WGETRC` replaces `/etc/wgetrc` when it exists, `HOME` places `~/.wgetrc`
 * (strace, 1.21.3). Proxies and `no_proxy` only route requests.
 */
export const WGET_ENV: Readonly<Record<string, 'config' | 'harmless'>> = {
  WGETRC: 'config',
  SYSTEM_WGETRC: 'config',
  HOME: 'config',
  http_proxy: 'harmless',
  https_proxy: 'harmless',
  ftp_proxy: 'harmless',
  no_proxy: 'harmless',
};

/** The system wgetrc compiled into Debian's wget (`wget --version`: `-DSYSTEM_WGETRC="/etc/wgetrc"`). */
export const SYSTEM_WGETRC = '/etc/wgetrc';

const RUNS = 'wget reads its configuration from';

/** One wgetrc command: its normalised key and its value (whitespace around both trimmed, quotes kept). */
export interface WgetrcCommand {
  key: string;
  value: Field;
}

/** `key = value` as wget reads it (quotes are part of the value: strace, `dir_prefix = "/x"` made `"`). */
export function wgetrcCommand(text: string, from: Field): WgetrcCommand | undefined {
  const m = /^\s*([A-Za-z0-9_-]+)\s*=\s*(.*?)\s*$/s.exec(text);
  if (!m) return undefined;
  return {
    key: m[1]!.replace(/[_-]/g, '').toLowerCase(),
    value: { ...from, value: m[2]!, raw: from.raw, glob: -1, tilde: m[2]!.startsWith('~') },
  };
}

function fileCommands(cx: CommandContext, text: string, f: Field): WgetrcCommand[] {
  const out: WgetrcCommand[] = [];
  for (const line of text.split('\n')) {
    if (/^\s*(#|$)/.test(line)) continue;
    const c = line.endsWith('\\') ? undefined : wgetrcCommand(line, { ...literal(line.trim()) });
    if (c) out.push(c);
    else cx.uncertain(`wget config ${f.raw}: line ${line.trim()} is not understood`, 'write', f.raw);
  }
  return out;
}

/**
 * The wgetrc commands wget runs before its options: `--config=FILE` alone when given before any
 * `--no-config` (then neither default file is read), nothing with `--no-config` first, else the system file
 * (`$SYSTEM_WGETRC` when it exists, else /etc/wgetrc) and the user's (`$WGETRC`, else `$HOME/.wgetrc`, else
 * the passwd entry's home). Each file read is a marker and its commands are applied.
 */
export function wgetConfigCommands(
  cx: CommandContext,
  opts: readonly { name: string; value?: Field }[],
): WgetrcCommand[] {
  // Read once a run: wget's path model and its network model apply the same commands.
  return cx.once('wget-config', () => configCommands(cx, opts));
}

function configCommands(
  cx: CommandContext,
  opts: readonly { name: string; value?: Field }[],
): WgetrcCommand[] {
  let explicit: Field | undefined;
  let chosen = false;
  for (const o of opts) {
    if (chosen) break;
    if (o.name === '--no-config') chosen = true;
    else if (o.name === '--config' && o.value) {
      explicit = o.value;
      chosen = true;
    }
  }
  const out: WgetrcCommand[] = [];
  const apply = (f: Field): boolean => {
    const r = readConfig(cx, f, RUNS, 'wgetrc');
    if ('text' in r) out.push(...fileCommands(cx, r.text, f));
    return !('absent' in r);
  };
  if (chosen) {
    if (explicit) {
      if (explicit.uncertain !== undefined) cx.uncertain('wget --config names a file not known', 'write');
      else {
        // Shown too: wget prints the line it cannot parse.
        cx.read(explicit, { tag: 'config' });
        apply(explicit);
      }
    }
    return out;
  }
  const sys = underVariable(cx, 'SYSTEM_WGETRC', '');
  if (sys === null) cx.uncertain('wget reads $SYSTEM_WGETRC, whose value is not known', 'write');
  if (!sys || !apply(sys)) apply(literal(SYSTEM_WGETRC));
  const user = underVariable(cx, 'WGETRC', '');
  if (user === null) cx.uncertain('wget reads $WGETRC, whose value is not known', 'write');
  else if (user) apply(user);
  else {
    const home = underVariable(cx, 'HOME', '.wgetrc');
    if (home === null) cx.uncertain('wget reads $HOME/.wgetrc, and HOME is not known', 'write');
    else if (home) apply(home);
    else {
      let pw: string | undefined;
      try {
        pw = userInfo().homedir;
      } catch {}
      if (pw) apply(literal(`${pw.replace(/\/+$/, '')}/.wgetrc`));
    }
  }
  return out;
}
