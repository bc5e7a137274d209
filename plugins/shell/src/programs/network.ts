import type { CommandHandler } from '../effects/extractTypes.js';
import type { Field } from '../state/expandWord.js';
import { has, parseArgs, values } from './argv.js';
import { emitOptions, literal } from './spec.js';

const CURL_ARG = [
  'output',
  'output-dir',
  'upload-file',
  'data',
  'data-binary',
  'data-raw',
  'data-ascii',
  'data-urlencode',
  'form',
  'form-string',
  'header',
  'user',
  'user-agent',
  'referer',
  'request',
  'config',
  'cookie',
  'cookie-jar',
  'dump-header',
  'trace',
  'trace-ascii',
  'stderr',
  'cacert',
  'capath',
  'cert',
  'key',
  'netrc-file',
  'proxy',
  'max-time',
  'connect-timeout',
  'retry',
  'write-out',
  'range',
  'resolve',
  'connect-to',
  'url',
  'json',
  'variable',
  'expand-url',
  'limit-rate',
  'max-filesize',
  'interface',
  'proxy-user',
  'oauth2-bearer',
  'hsts',
  'alt-svc',
  'etag-save',
  'etag-compare',
  'libcurl',
  'unix-socket',
  'abstract-unix-socket',
  'krb',
  'pinnedpubkey',
];

/** `@file` in `-d @file` / `-F name=@file` / `-F name=<file` names a file that is read. */
function atFile(f: Field): Field | undefined {
  const v = f.value;
  const m = /^(?:[^=]*=)?[@<](.+)$/.exec(v);
  if (!m || m[1] === '-') return undefined;
  const value = m[1]!.replace(/;.*$/, '');
  return { ...f, value, glob: -1, tilde: value.startsWith('~') };
}

/** curl: `-o/--output` write, `-O` writes the remote name into `--output-dir` or the cwd. */
const curl: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, {
    short: 'oTdFHuArKbcDXEeymwzxUt',
    long: CURL_ARG,
    flags: [
      'remote-name',
      'remote-name-all',
      'remote-header-name',
      'create-dirs',
      'location',
      'silent',
      'fail',
      'insecure',
    ],
  });
  emitOptions(cx, p, {
    '-o': 'write',
    '--output': 'write',
    '-T': 'read',
    '--upload-file': 'read',
    '-K': 'read',
    '--config': 'read',
    '-c': 'write',
    '--cookie-jar': 'write',
    '-D': 'write',
    '--dump-header': 'write',
    '--trace': 'write',
    '--trace-ascii': 'write',
    '--stderr': 'write',
    '--cacert': 'read',
    '--capath': 'read',
    '-E': 'read',
    '--cert': 'read',
    '--key': 'read',
    '--netrc-file': 'read',
    '--hsts': 'write',
    '--alt-svc': 'write',
    '--etag-save': 'write',
    '--etag-compare': 'read',
    '--libcurl': 'write',
    '--output-dir': 'write',
  });
  for (const f of values(
    p,
    '-d',
    '--data',
    '--data-binary',
    '--data-ascii',
    '--data-urlencode',
    '-F',
    '--form',
    '--json',
    '-b',
    '--cookie',
    '-H',
    '--header',
  )) {
    const file = atFile(f);
    if (file) cx.read(file, { tag: 'data' });
  }
  if (has(p, '-O', '--remote-name', '--remote-name-all', '-J', '--remote-header-name')) {
    const dir = values(p, '--output-dir')[0] ?? literal('.');
    cx.write({ ...dir, value: `${dir.value}/*`, glob: dir.value.length + 1 }, { tag: 'remote-name' });
  }
};

/** wget: `-O FILE` write; otherwise files land under `-P DIR` (or the cwd). */
const wget: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, {
    short: 'OPoaiBetTwQlADRIXU',
    long: [
      'output-document',
      'directory-prefix',
      'output-file',
      'append-output',
      'input-file',
      'base',
      'execute',
      'tries',
      'timeout',
      'wait',
      'quota',
      'level',
      'accept',
      'reject',
      'domains',
      'exclude-domains',
      'include-directories',
      'exclude-directories',
      'user-agent',
      'header',
      'post-data',
      'post-file',
      'body-file',
      'load-cookies',
      'save-cookies',
      'ca-certificate',
      'certificate',
      'private-key',
      'user',
      'password',
      'config',
      'hsts-file',
      'warc-file',
      'rejected-log',
      'method',
      'limit-rate',
      'referer',
    ],
  });
  emitOptions(cx, p, {
    '-o': 'write',
    '--output-file': 'write',
    '-a': 'write',
    '--append-output': 'write',
    '-i': 'read',
    '--input-file': 'read',
    '--post-file': 'read',
    '--body-file': 'read',
    '--load-cookies': 'read',
    '--save-cookies': 'write',
    '--ca-certificate': 'read',
    '--certificate': 'read',
    '--private-key': 'read',
    '--config': 'read',
    '--hsts-file': 'write',
    '--warc-file': 'write',
    '--rejected-log': 'write',
  });
  const out = values(p, '-O', '--output-document')[0];
  if (out) {
    if (out.value !== '-') cx.write(out, { tag: 'output' });
    return;
  }
  const dir = values(p, '-P', '--directory-prefix')[0] ?? literal('.');
  cx.write(dir, { scope: 'subtree', tag: 'download' });
};

/** ssh/sftp: local files are keys and configs; `-o ProxyCommand=` runs a local program. */
const ssh: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, { short: 'BbcDEeFIiJLlmOoPpQRSWw', posix: true });
  emitOptions(cx, p, { '-i': 'read', '-F': 'read', '-E': 'write', '-S': 'write' });
  // Operands after the host are a command run there — and the host may be this machine.
  if (p.operands.length > 1) cx.uncertain(`${cx.name} runs a command on a host that may be this one`);
  for (const o of values(p, '-o')) {
    if (
      /^\s*(ProxyCommand|LocalCommand|KnownHostsCommand|IdentityAgent)/i.test(o.value) ||
      o.uncertain !== undefined
    ) {
      cx.uncertain(`ssh -o ${o.value} runs a local program`);
    }
  }
};

export const network: Record<string, CommandHandler> = { curl, wget, ssh, sftp: ssh };
