import type { NetMethod } from '@toolgate/core';
import type { CommandContext } from '../../../effects/extractTypes.js';
import type { Field } from '../../../state/expandWord.js';
import { parseArgs } from '../../argv.js';
import { type WgetrcCommand, wgetConfigCommands, wgetrcCommand } from '../wgetConfig.js';
import { WGET_LONG_ARG, WGET_LONG_FLAG, WGET_SHORT_ARG, WGET_SHORT_FLAG } from '../wgetOptions.js';
import { hostOf, noProxyExempts, reachAddress, unknownHost, variableValue } from './netReach.js';

// Where wget connects (wget info "Invoking", "Wgetrc Commands", "Proxies"; GNU Wget 1.21): each URL, the
// proxy of its scheme (`http_proxy`/`https_proxy`/`ftp_proxy` from wgetrc or the environment, unless
// `--no-proxy`/`use_proxy = off` or `no_proxy` exempts the host). `-i FILE`, and recursion that may span
// hosts (`-r`/`-m`/`-p` with `-H`), reach hosts named by data: uncertain. Redirects are a limit (README).

/** The wgetrc command each option that matters here stands for (wget's main.c option table). */
const OPTION_COMMAND: Readonly<Record<string, string | readonly [string, string]>> = {
  '--post-data': 'postdata',
  '--post-file': 'postfile',
  '--body-data': 'bodydata',
  '--body-file': 'bodyfile',
  '--method': 'method',
  '-i': 'input',
  '--input-file': 'input',
  '-B': 'base',
  '--base': 'base',
  '--no-proxy': ['useproxy', 'off'],
  '-H': ['spanhosts', 'on'],
  '--span-hosts': ['spanhosts', 'on'],
  '-r': ['recursive', 'on'],
  '--recursive': ['recursive', 'on'],
  '-m': ['recursive', 'on'],
  '--mirror': ['recursive', 'on'],
  '-p': ['pagerequisites', 'on'],
  '--page-requisites': ['pagerequisites', 'on'],
};

/** Commands whose value is sent as the body: the method is `write`. */
const SENDS = new Set(['postdata', 'postfile', 'bodydata', 'bodyfile']);
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

interface WgetNet {
  method: NetMethod;
  input: Field[];
  useProxy: boolean | null;
  proxies: Map<string, Field>;
  noProxy?: Field;
  spans: boolean;
  recursive: boolean;
}

const on = (v: string): boolean | null =>
  /^(on|yes|1|true)$/i.test(v) ? true : /^(off|no|0|false)$/i.test(v) ? false : null;

function apply(s: WgetNet, c: WgetrcCommand): void {
  const v = c.value;
  if (SENDS.has(c.key)) s.method = 'write';
  else if (c.key === 'method') {
    if (v.uncertain !== undefined || !READ_METHODS.has(v.value.toUpperCase())) s.method = 'write';
  } else if (c.key === 'input') s.input.push(v);
  else if (c.key === 'useproxy') s.useProxy = v.uncertain !== undefined ? null : on(v.value);
  else if (/^(http|https|ftp)proxy$/.test(c.key)) s.proxies.set(c.key.replace(/proxy$/, ''), v);
  else if (c.key === 'noproxy') s.noProxy = v;
  else if (c.key === 'spanhosts') s.spans = v.uncertain !== undefined || on(v.value) !== false;
  else if (c.key === 'recursive' || c.key === 'mirror' || c.key === 'pagerequisites')
    s.recursive ||= v.uncertain !== undefined || on(v.value) !== false;
}

function asCommand(o: { name: string; value?: Field }): WgetrcCommand | undefined {
  const c = OPTION_COMMAND[o.name];
  if (c === undefined) return undefined;
  if (typeof c !== 'string')
    return { key: c[0], value: { value: c[1], raw: o.name, glob: -1, tilde: false } };
  return o.value ? { key: c, value: o.value } : undefined;
}

/** The hosts a wget command line reaches (see the file's header). */
export function wgetReach(cx: CommandContext): void {
  const p = parseArgs(cx.args, {
    short: WGET_SHORT_ARG,
    shortFlags: WGET_SHORT_FLAG,
    long: WGET_LONG_ARG,
    flags: WGET_LONG_FLAG,
  });
  const s: WgetNet = {
    method: 'read',
    input: [],
    useProxy: true,
    proxies: new Map(),
    spans: false,
    recursive: false,
  };
  for (const c of wgetConfigCommands(cx, p.opts)) apply(s, c);
  for (const o of p.opts) {
    if ((o.name === '-e' || o.name === '--execute') && o.value) {
      const c = o.value.uncertain === undefined ? wgetrcCommand(o.value.value, o.value) : undefined;
      if (c) apply(s, c);
      else unknownHost(cx, o.value.raw, { method: 'write' }, 'wget -e: a command that is not known');
      continue;
    }
    const c = asCommand(o);
    if (c) apply(s, c);
  }
  for (const f of s.input) {
    if (/^[a-z]+:\/\//i.test(f.value)) reachAddress(cx, f, { method: s.method, scheme: 'http' });
    else unknownHost(cx, f.raw, { method: s.method }, 'wget -i: the URLs are in a file');
  }
  for (const u of p.operands) {
    reachAddress(cx, u, { method: s.method, scheme: 'http' });
    if (u.uncertain !== undefined) continue;
    const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(u.value)?.[1]?.toLowerCase() ?? 'http';
    const host = hostOf(u.value, scheme);
    if (host === undefined) continue;
    if (s.recursive && s.spans)
      unknownHost(cx, u.value, { method: s.method }, 'wget -r -H follows links to any host');
    proxy(cx, s, scheme, host, u.value);
  }
}

function proxy(cx: CommandContext, s: WgetNet, scheme: string, host: string, url: string): void {
  if (s.useProxy === false) return;
  const noProxy = s.noProxy !== undefined ? s.noProxy.value : variableValue(cx, 'no_proxy');
  if (noProxy !== null && noProxyExempts(noProxy, host)) return;
  const set = s.proxies.get(scheme);
  // wget reads only the lower-case variables (retr.c getproxy: getenv ("http_proxy")).
  const env = set === undefined ? variableValue(cx, `${scheme}_proxy`) : undefined;
  if (env === null) {
    unknownHost(
      cx,
      `$${scheme}_proxy`,
      { method: s.method, origin: 'wget:proxy' },
      'wget: a proxy variable is not known',
    );
    return;
  }
  const value = set ?? env;
  if (value === undefined || (typeof value !== 'string' && value.value === '')) return;
  reachAddress(cx, value, {
    method: s.method,
    scheme: 'http',
    origin: 'wget:proxy',
    reason: `wget sends ${url} through ${set !== undefined ? `${scheme}_proxy (wgetrc)` : `$${scheme}_proxy`}`,
  });
}
