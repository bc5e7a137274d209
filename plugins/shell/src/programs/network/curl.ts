import type { CommandContext, CommandHandler } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { type ArgSpec, has, parseArgs, values } from '../argv.js';
import { emitRole, literal, type Role } from '../spec.js';
import { underVariable } from './configFile.js';
import { curlConfigFields } from './curlConfig.js';
import { CURL_LONG_ARG, CURL_LONG_FLAG, CURL_SHORT_ARG, CURL_SHORT_FLAG } from './curlOptions.js';
import { expandUrlGlob, fillTemplate } from './urlGlob.js';
import { createdDirs, curlRemoteName, freeName, inDir } from './urlName.js';
import { knownUrlPrefix } from './urlPrefix.js';

const CURL: ArgSpec = {
  short: CURL_SHORT_ARG,
  shortFlags: CURL_SHORT_FLAG,
  long: CURL_LONG_ARG,
  flags: CURL_LONG_FLAG,
};

// Options whose value is a local file (man curl, 7.88). `--hsts`/`--alt-svc` caches are read and rewritten.
const FILE_OPTS: Readonly<Record<string, Role>> = {
  '-o': 'write',
  '--output': 'write',
  '-c': 'write',
  '--cookie-jar': 'write',
  '-D': 'write',
  '--dump-header': 'write',
  '--trace': 'write',
  '--trace-ascii': 'write',
  '--stderr': 'write',
  '--libcurl': 'write',
  '--etag-save': 'write',
  '--hsts': 'write',
  '--alt-svc': 'write',
  '-T': 'read',
  '--upload-file': 'read',
  '--cacert': 'read',
  '--capath': 'read',
  '--crlfile': 'read',
  '--key': 'read',
  '--netrc-file': 'read',
  '--etag-compare': 'read',
  '--egd-file': 'read',
  '--random-file': 'read',
  '--proxy-cacert': 'read',
  '--proxy-capath': 'read',
  '--proxy-crlfile': 'read',
  '--proxy-key': 'read',
  '--pubkey': 'read',
  // Connecting to a Unix socket needs write permission on it (the Docker socket is root on the host).
  '--unix-socket': 'write',
};

/** A field for part of another field's value (a file named inside an option value): never globbed or tilded. */
function part(f: Field, value: string): Field {
  // The shell expanded (or left for the resolver) a `~` only at the start of the word.
  return { ...f, value, glob: -1, tilde: f.tilde && value.startsWith('~') && f.value.startsWith(value) };
}

/** The file in a `@file` value: `-d @F`, `--data-urlencode [name]@F`, `-F name=@F;type=x` / `name=<F`, `-H @F`. */
function dataFile(opt: string, v: string): string | undefined {
  let m: RegExpExecArray | null;
  if (opt === '--data-urlencode') {
    // `name=content` and `=content` are data; `@file` and `name@file` read a file.
    m = /^[^=@]*@(.+)$/s.exec(v);
  } else if (opt === '-F' || opt === '--form') {
    m = /^[^=]*=[@<]("[^"]*"|[^;]*)/s.exec(v);
    if (m) return m[1]!.replace(/^"(.*)"$/s, '$1');
  } else if (opt === '--variable') {
    m = /^[^=@%]*@(.+)$/s.exec(v);
  } else m = /^@(.+)$/s.exec(v);
  return m?.[1];
}

/** A `file:` URL names a local file: read, or written when it is an upload's destination (`-T F file:///x`). */
function fileUrl(cx: CommandContext, f: Field, upload: boolean): void {
  const m = /^file:(?:\/\/([^/]*))?(\/.*)?$/is.exec(f.value);
  if (!m) return;
  if (m[1] !== undefined && m[1] !== '' && m[1].toLowerCase() !== 'localhost') {
    cx.uncertain(`curl file URL with host ${m[1]}`, upload ? 'write' : 'read', f.raw);
    return;
  }
  // curl's URL parser drops `?query` and `#fragment` (strace: `file:///x/f.txt?a#b` opened /x/f.txt).
  let path: string;
  try {
    path = decodeURIComponent((m[2] ?? '/').replace(/[?#].*$/s, '') || '/');
  } catch {
    cx.uncertain('curl file URL with a malformed escape', upload ? 'write' : 'read', f.raw);
    return;
  }
  // curl expands `{a,b}` and `[1-9]` in URLs unless -g: a file URL with them names files we do not list.
  if (/[{[]/.test(path)) {
    cx.uncertain('curl expands a glob in a file URL', upload ? 'write' : 'read', f.raw);
    return;
  }
  emitRole(cx, part(f, path), upload ? 'write' : 'read', { tag: 'file-url' });
}

/**
 * A URL operand or `--url` value: a `file:` URL is a path; one not known may be one (`curl --url
 * "$(echo file:///etc/shadow)"`), unless its known start shows another scheme (`"https://h/$X"`).
 */
function curlUrl(cx: CommandContext, u: Field, upload: boolean): void {
  if (u.uncertain === undefined) {
    fileUrl(cx, u, upload);
    return;
  }
  const prefix = knownUrlPrefix(u);
  if (prefix === undefined || /^file:/i.test(prefix))
    cx.uncertain(`curl URL is not known: ${u.uncertain}`, 'read', u.raw);
}

/** `--output-dir D` joined to a relative output path (curl 7.73+); an absolute one ignores it. */
function inOutputDir(dir: Field | undefined, f: Field): Field {
  if (!dir || f.value.startsWith('/') || f.tilde) return f;
  return { ...dir, value: `${dir.value.replace(/\/+$/, '')}/${f.value}`, glob: dir.glob };
}

/**
 * curl: every option from its table, after the options of its config files (`curlConfig.ts`: the default
 * `.curlrc` unless `-q`, each `-K FILE`) — options that name local files read or write them, `@file` data is
 * read, `file:` URLs are local reads (or writes for uploads); `-o` (with `#N` from curl's own URL globs) and
 * `-O` (the URL's name, `curlRemoteName`) write into every `--output-dir` given, `-J` writes a name the
 * server picks; `SSLKEYLOGFILE` is appended to.
 */
const curl: CommandHandler = (cx) => {
  const p = parseArgs([...curlConfigFields(cx, cx.args), ...cx.args], CURL);
  // curl accepts `--no-FLAG` for every boolean flag.
  for (const o of p.unknown) {
    if (!(o.startsWith('--no-') && CURL_LONG_FLAG.includes(o.slice(5))))
      cx.uncertain(`curl: option ${o} is not in its table`, 'write', o);
  }
  keyLog(cx);
  const globoff = has(p, '-g', '--globoff');
  const createDirs = has(p, '--create-dirs');
  const dirs: (Field | undefined)[] = values(p, '--output-dir');
  if (dirs.length === 0) dirs.push(undefined);
  const urls = [...p.operands, ...values(p, '--url')];
  for (const o of p.opts) {
    const v = o.value;
    if (!v) continue;
    const role = FILE_OPTS[o.name];
    if (o.name === '-o' || o.name === '--output') {
      if (v.value !== '-') output(cx, v, urls, dirs, globoff, createDirs);
    } else if (role && !(v.value === '-' && role === 'write') && !(o.name === '-T' && v.value === '.')) {
      emitRole(cx, v, role, { tag: o.name.replace(/^-+/, '') });
      if (o.name === '--hsts' || o.name === '--alt-svc') cx.read(v, { tag: o.name.slice(2) });
    }
    if (o.name === '-E' || o.name === '--cert' || o.name === '--proxy-cert') {
      // `file[:password]`; a `:` may also be part of the name (escaped as `\:`): take the part before an unescaped `:`.
      const name = /^((?:[^:\\]|\\.)*)/.exec(v.value)![1]!.replace(/\\(.)/g, '$1');
      cx.read(part(v, name), { tag: 'cert' });
    }
    if (o.name === '-b' || o.name === '--cookie') {
      // A value without `=` is a cookie file to read (man curl).
      if (!v.value.includes('=')) cx.read(v, { tag: 'cookie' });
    }
    if (o.name === '-w' || o.name === '--write-out') {
      if (v.value.startsWith('@') && v.value !== '@-')
        cx.read(part(v, v.value.slice(1)), { tag: 'write-out' });
      // `%output{file}` (curl 8.3+) writes a file; 7.88 prints it literally — be safe across versions.
      if (/%output\{/.test(v.value)) cx.uncertain('curl -w %output{} writes a file', 'write', v.raw);
    }
    if (o.name === '--engine' && v.value !== 'list')
      cx.uncertain('curl --engine loads a crypto engine', 'write');
    if (o.name === '--pinnedpubkey' || o.name === '--proxy-pinnedpubkey') {
      if (!v.value.startsWith('sha256//')) cx.read(v, { tag: 'pinnedpubkey' });
    }
    const file = dataFile(o.name, v.value);
    if (
      file !== undefined &&
      file !== '-' &&
      [
        '-d',
        '--data',
        '--data-binary',
        '--data-ascii',
        '--data-urlencode',
        '--json',
        '-F',
        '--form',
        '-H',
        '--header',
        '--proxy-header',
        '--variable',
        '--url-query',
      ].includes(o.name)
    )
      // `-F name=@a,b` sends several files.
      for (const one of new Set([file, ...(o.name === '-F' || o.name === '--form' ? file.split(',') : [])]))
        cx.read(part(v, one), { tag: 'data' });
    if ((o.name === '-T' || o.name === '--upload-file') && /[{[]/.test(v.value) && !has(p, '-g', '--globoff'))
      cx.uncertain('curl expands a glob in -T', 'read', v.raw);
    if (o.name === '--url') curlUrl(cx, v, has(p, '-T', '--upload-file'));
  }
  if (p.strays.length > 0) cx.unknownOperands(p.strays);
  if (has(p, '-n', '--netrc', '--netrc-optional')) netrc(cx);
  const upload = has(p, '-T', '--upload-file');
  for (const u of p.operands) curlUrl(cx, u, upload);
  if (has(p, '-J', '--remote-header-name'))
    // The server's Content-Disposition name (its last segment), else the URL's (strace: `-OJ` wrote the
    // server's `evil.txt`, O_EXCL): any name in the directory.
    for (const dir of dirs)
      cx.write(dir ?? literal('.'), {
        scope: 'subtree',
        tag: 'remote-header-name',
        unknownNames: 'curl -J names the file as the server says',
      });
  else if (has(p, '-O', '--remote-name', '--remote-name-all')) {
    const names = remoteNames(urls, globoff);
    const noClobber = has(p, '--no-clobber');
    for (const dir of dirs) {
      const at = dir ?? literal('.');
      if (createDirs && dir) createdDirs(cx, inDir(dir, 'x'));
      if (names === undefined) {
        cx.write(at, {
          scope: 'subtree',
          tag: 'remote-name',
          unknownNames: 'curl -O names a file from a URL not known',
        });
        continue;
      }
      for (const n of names) cx.write(noClobber ? freeName(cx, at, n) : inDir(at, n), { tag: 'remote-name' });
    }
  }
};

/** The `-O` names of these URLs after curl's globbing; `undefined` when one is not known. */
function remoteNames(urls: readonly Field[], globoff: boolean): string[] | undefined {
  const out = new Set<string>();
  for (const u of urls) {
    const expanded = globoff || u.uncertain !== undefined ? [{ url: u.value }] : expandUrlGlob(u.value);
    if (!expanded) return undefined;
    for (const e of expanded) {
      const names = curlRemoteName({ ...u, value: e.url });
      if (!names) return undefined;
      for (const n of names) out.add(n);
    }
  }
  return [...out];
}

/** `-o FILE`: in each `--output-dir`; `#N` filled from every URL's glob values. */
function output(
  cx: CommandContext,
  v: Field,
  urls: readonly Field[],
  dirs: readonly (Field | undefined)[],
  globoff: boolean,
  createDirs: boolean,
): void {
  let files: Field[] = [v];
  if (!globoff && /#\d/.test(v.value)) {
    const filled = new Set<string>();
    for (const u of urls) {
      const expanded = u.uncertain === undefined ? expandUrlGlob(u.value) : undefined;
      if (!expanded || v.uncertain !== undefined) {
        cx.uncertain('curl -o with #N names files from a URL glob that is not known', 'write', v.raw);
        return;
      }
      for (const e of expanded) filled.add(fillTemplate(v.value, e.values));
    }
    files = [...filled].map((value) => ({ ...v, value, glob: value === v.value ? v.glob : -1 }));
  }
  for (const dir of dirs)
    for (const f of files) {
      const target = inOutputDir(dir, f);
      if (createDirs) createdDirs(cx, target);
      cx.write(target, { tag: 'o' });
    }
}

/** `SSLKEYLOGFILE`: curl (OpenSSL) appends TLS secrets to it, whatever the URL. */
function keyLog(cx: CommandContext): void {
  const k = cx.variable('SSLKEYLOGFILE');
  if (k === undefined || k === '') return;
  if (k === null) cx.uncertain('curl appends to $SSLKEYLOGFILE, whose value is not known', 'write');
  else cx.write(literal(k), { tag: 'sslkeylogfile' });
}

/** `-n`: `$HOME/.netrc` (the passwd entry's home when HOME is unset). */
function netrc(cx: CommandContext): void {
  const f = underVariable(cx, 'HOME', '.netrc');
  if (f === null) cx.uncertain('curl -n reads $HOME/.netrc, and HOME is not known', 'read');
  else cx.read(f ?? { ...literal('~/.netrc'), tilde: true }, { tag: 'netrc' });
}

export const curlFamily: Record<string, CommandHandler> = { curl };
