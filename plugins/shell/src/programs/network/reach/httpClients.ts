import type { NetMethod } from '@toolgate/core';
import type { CommandHandler } from '../../../effects/extractTypes.js';
import { parseArgs, values } from '../../argv.js';
import { environmentProxyReach, reachAddress, unknownHost } from './netReach.js';

// Other clients that fetch or send by URL: HTTPie (`http`, `https`), aria2c, ftp, lftp, rclone, the GitHub
// CLI. Each from its manual; what is not modelled (a remote named in a config file, commands read from
// stdin) is an uncertain reach. Their path effects are the path side's (unknown commands unless modelled).

const HTTPIE_METHODS = /^(GET|HEAD|OPTIONS|POST|PUT|PATCH|DELETE|[A-Z]+)$/;

/**
 * HTTPie (httpie.io/docs/cli): `http [METHOD] URL [ITEM…]`; `:3000/x` is localhost; a scheme-less URL takes
 * `http://` (`https://` for the `https` command, or `--default-scheme`). Items `k=v`, `k:=json`, `k@file`,
 * `k=@file` are a body (default method POST: write); `k==v` a query, `H:v` a header.
 */
const httpie: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, {
    short: 'aAv',
    long: [
      'auth',
      'auth-type',
      'proxy',
      'default-scheme',
      'session',
      'session-read-only',
      'output',
      'download',
      'pretty',
      'style',
      'print',
      'verify',
      'cert',
      'cert-key',
      'timeout',
      'max-redirects',
      'boundary',
      'raw',
      'format-options',
      'response-charset',
      'response-mime',
      'ssl',
      'ciphers',
      'history-print',
      'chunked',
    ],
  });
  if (p.opts.some((o) => o.name === '--offline')) return;
  let ops = p.operands;
  let method: NetMethod | undefined;
  if (ops[0] && ops[0].uncertain === undefined && HTTPIE_METHODS.test(ops[0].value)) {
    method = /^(GET|HEAD|OPTIONS)$/.test(ops[0].value) ? 'read' : 'write';
    ops = ops.slice(1);
  }
  const [url, ...items] = ops;
  if (!url) return;
  const body = items.some(
    (i) =>
      i.uncertain !== undefined || (/^[^=:@]*(?::=|=(?!=)|@)/.test(i.value) && !/^[^=:]*==/.test(i.value)),
  );
  const m: NetMethod =
    method ??
    (body || p.opts.some((o) => o.name === '--form' || o.name === '-f' || o.name === '--raw')
      ? 'write'
      : 'read');
  const scheme = values(p, '--default-scheme').at(-1)?.value ?? (cx.name === 'https' ? 'https' : 'http');
  const target =
    url.uncertain === undefined && /^:/.test(url.value) ? { ...url, value: `localhost${url.value}` } : url;
  reachAddress(cx, target, { method: m, scheme });
  // HTTPie uses requests: HTTP(S)_PROXY in either case, unless --proxy.
  if (values(p, '--proxy').length === 0 && target.uncertain === undefined)
    environmentProxyReach(
      cx,
      /^[a-z]+:\/\//i.test(target.value) ? target.value : `${scheme}://${target.value}`,
      m,
      'both',
      `${cx.name}:proxy`,
    );
  for (const x of values(p, '--proxy')) {
    const v = x.value.replace(/^[a-z]+:(?=[a-z]+:\/\/)/i, ''); // `http:http://proxy:3128`
    reachAddress(
      cx,
      { ...x, value: v },
      {
        method: m,
        scheme: 'http',
        origin: `${cx.name}:proxy`,
        reason: `${cx.name} --proxy carries ${url.value}`,
      },
    );
  }
};

/** aria2c: URIs (several mirrors of one file), `-i FILE` (URIs in a file), torrents and metalinks (peers). */
const aria2c: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, {
    short: 'diojsxkTM',
    long: [
      'dir',
      'input-file',
      'out',
      'all-proxy',
      'http-proxy',
      'https-proxy',
      'ftp-proxy',
      'torrent-file',
      'metalink-file',
    ],
  });
  for (const f of values(p, '-i', '--input-file'))
    unknownHost(cx, f.raw, { method: 'read' }, 'aria2c -i: the URIs are in a file');
  for (const f of values(p, '-T', '--torrent-file', '-M', '--metalink-file'))
    unknownHost(cx, f.raw, { method: 'write' }, 'aria2c: torrent or metalink peers are not known');
  for (const f of values(p, '--all-proxy', '--http-proxy', '--https-proxy', '--ftp-proxy'))
    reachAddress(cx, f, { method: 'read', scheme: 'http', origin: 'aria2c:proxy' });
  for (const u of p.operands) {
    if (
      u.uncertain === undefined &&
      /\.(torrent|metalink|meta4)$/i.test(u.value) &&
      !/^[a-z]+:\/\//i.test(u.value)
    ) {
      unknownHost(cx, u.value, { method: 'write' }, 'aria2c: torrent or metalink peers are not known');
      continue;
    }
    if (u.uncertain === undefined && /^magnet:/i.test(u.value)) {
      unknownHost(cx, u.value, { method: 'write' }, 'aria2c: a magnet link reaches peers that are not known');
      continue;
    }
    reachAddress(cx, u, { method: 'read', scheme: 'http' });
  }
};

/** ftp HOST [PORT]: commands (put, get) come from stdin. */
const ftp: CommandHandler = (cx) => {
  const ops = cx.args.filter((f) => !f.value.startsWith('-') || f.uncertain !== undefined);
  const [host, port] = ops;
  if (!host) return;
  const p =
    port?.uncertain === undefined && port && /^\d+$/.test(port.value) ? { port: Number(port.value) } : {};
  reachAddress(cx, host, { method: 'write', scheme: 'ftp', ...p });
};

/** lftp [-p PORT] [-u USER] SITE (a host or URL); `-c`/`-f`/`-e` commands and bookmarks: not modelled. */
const lftp: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, {
    short: 'pucfe',
    long: ['user', 'password', 'env-password', 'norc', 'rcfile'],
  });
  const site = p.operands[0];
  if (values(p, '-c', '-f').length > 0 && !site) {
    unknownHost(cx, cx.name, { method: 'write' }, 'lftp runs commands that name their own sites');
    return;
  }
  if (!site) return;
  const port = values(p, '-p').at(-1);
  reachAddress(cx, site, {
    method: 'write',
    scheme: 'ftp',
    ...(port && /^\d+$/.test(port.value) ? { port: Number(port.value) } : {}),
  });
};

/** rclone: a `remote:path` is resolved through rclone.conf (backends, endpoints): uncertain. */
const LOCAL_RCLONE = new Set([
  'version',
  'help',
  'listremotes',
  'config',
  'genautocomplete',
  'completion',
  'obscure',
  'gendocs',
]);
const rclone: CommandHandler = (cx) => {
  const ops = cx.args.filter((f) => !f.value.startsWith('-'));
  const sub = ops[0];
  if (!sub || (sub.uncertain === undefined && LOCAL_RCLONE.has(sub.value))) return;
  const remote = ops.slice(1).some((f) => f.uncertain !== undefined || /^[^/]+:/.test(f.value));
  if (remote)
    unknownHost(
      cx,
      ops.map((f) => f.raw).join(' '),
      { method: 'write' },
      'rclone: a remote is defined in rclone.conf',
    );
};

/** gh subcommand groups that only read; any other sends something (creates, edits, merges, uploads). */
const GH_READS =
  /^(?:(?:pr|issue|run|release|repo|gist|workflow|label|cache|ruleset|secret|variable|search|project|codespace|org|extension) (?:list|view|status|checks|diff|watch|download|ls)|search \w+|status|browse|auth status|repo clone|pr checkout|api)$/;

/**
 * The GitHub CLI (cli.github.com/manual): the API of `github.com` (api.github.com) unless `GH_HOST`,
 * `--hostname` or a `-R HOST/OWNER/REPO` names an Enterprise host; `repo clone` and `pr checkout` also run
 * git against the host. `gh api` writes when `-X` is not GET or it sends fields (`-f`, `-F`, `--input`).
 */
const gh: CommandHandler = (cx) => {
  const words = cx.args.filter((f) => !f.value.startsWith('-')).map((f) => f.value);
  const sub = words.slice(0, 2).join(' ');
  const p = parseArgs(cx.args, {
    short: 'RXfFHqpt',
    long: ['repo', 'method', 'field', 'raw-field', 'header', 'input', 'hostname', 'jq', 'template', 'cache'],
  });
  let method: NetMethod = GH_READS.test(sub) || GH_READS.test(words[0] ?? '') ? 'read' : 'write';
  if (words[0] === 'api') {
    const x = values(p, '-X', '--method').at(-1);
    method =
      (x && x.value.toUpperCase() !== 'GET') ||
      values(p, '-f', '-F', '--field', '--raw-field', '--input').length > 0
        ? 'write'
        : 'read';
  }
  if (['version', 'help', 'completion', 'alias', 'config'].includes(words[0] ?? '') || words.length === 0)
    return;
  const repo = values(p, '-R', '--repo').at(-1);
  const named =
    values(p, '--hostname').at(-1)?.value ??
    (repo && repo.value.split('/').length === 3 ? repo.value.split('/')[0] : undefined);
  const env = cx.variable('GH_HOST');
  if (env === null && named === undefined) {
    unknownHost(cx, '$GH_HOST', { method }, 'gh: GH_HOST is not known');
    return;
  }
  const host = named ?? (typeof env === 'string' && env !== '' ? env : 'github.com');
  const api = host === 'github.com' ? 'api.github.com' : host;
  reachAddress(cx, api, { method, scheme: 'https' });
  environmentProxyReach(cx, `https://${api}/`, method, 'both', 'gh:proxy');
  if (sub === 'repo clone' || sub === 'pr checkout')
    reachAddress(cx, host, { method: 'read', scheme: 'https', origin: 'gh:git' });
};

export const httpClients: Record<string, CommandHandler> = {
  http: httpie,
  https: httpie,
  httpie,
  aria2c,
  ftp,
  lftp,
  rclone,
  gh,
};
