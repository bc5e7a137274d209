import { userInfo } from 'node:os';
import type { CommandContext } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { parseArgs } from '../argv.js';
import { literal } from '../spec.js';
import { configField, readConfig, underVariable } from './configFile.js';
import { CURL_LONG_ARG, CURL_LONG_FLAG, CURL_SHORT_ARG, CURL_SHORT_FLAG } from './curlOptions.js';

// curl's inputs besides argv (curl(1) "-K, --config", FILES, ENVIRONMENT; strace of curl 7.88.1).

/**
 * The default config file, searched in this order unless the FIRST argument starts with `-q` or is
 * `--disable` (curl compares argv[1] with `strncmp(arg, "-q", 2)`: `-qs` disables it too, `-s -q` and
 * `--disa` do not — strace). curl reads the first that opens and stops. `maybe`: the name differs between
 * curl versions, so the file is applied when it exists but the search goes on. `unlessXdg`: skipped when
 * `XDG_CONFIG_HOME` is set. The `_curlrc` names are Windows-only. Last, curl tries the passwd entry's home.
 */
export const CURLRC_SEARCH: readonly {
  variable: string;
  file: string;
  maybe?: boolean;
  unlessXdg?: boolean;
}[] = [
  { variable: 'CURL_HOME', file: '.curlrc' },
  { variable: 'XDG_CONFIG_HOME', file: '.curlrc', maybe: true }, // 7.73–8.x opened this one (strace, 7.88)
  { variable: 'XDG_CONFIG_HOME', file: 'curlrc', maybe: true }, // the name curl(1) documents from 8.x
  { variable: 'HOME', file: '.curlrc' },
  { variable: 'HOME', file: '.config/curlrc', unlessXdg: true },
];

/**
 * Environment variables that change what curl touches. `config`: where the config file is found (above);
 * `write`: a file curl opens for appending whatever the URL (strace: `SSLKEYLOGFILE=keys curl http://…`
 * opened `keys` O_APPEND|O_CREAT); `harmless`: read for trust or routing, never shown nor written.
 */
export const CURL_ENV: Readonly<Record<string, 'config' | 'write' | 'harmless'>> = {
  CURL_HOME: 'config',
  XDG_CONFIG_HOME: 'config',
  HOME: 'config',
  SSLKEYLOGFILE: 'write',
  CURL_CA_BUNDLE: 'harmless',
  SSL_CERT_FILE: 'harmless',
  SSL_CERT_DIR: 'harmless',
  CURL_SSL_BACKEND: 'harmless',
  http_proxy: 'harmless',
  https_proxy: 'harmless',
  HTTPS_PROXY: 'harmless',
  ALL_PROXY: 'harmless',
  NO_PROXY: 'harmless',
};

const RUNS = 'curl reads its configuration from';
const MAX_DEPTH = 4;

function isSpace(c: string | undefined): boolean {
  return c !== undefined && ' \t\n\v\f\r'.includes(c);
}

/** curl's `unslashquote`: a quoted value up to the closing quote, with `\t \n \r \v` and `\X` escapes. */
function unquote(line: string, from: number): string {
  let out = '';
  for (let i = from; i < line.length && line[i] !== '"'; i++) {
    if (line[i] === '\\' && i + 1 < line.length) {
      const e = line[++i]!;
      out += e === 't' ? '\t' : e === 'n' ? '\n' : e === 'r' ? '\r' : e === 'v' ? '\v' : e;
    } else out += line[i];
  }
  return out;
}

/** Whether a config-file option takes a value (as the command line's table says); `undefined`: unknown. */
function takesValue(option: string): boolean | undefined {
  if (option.startsWith('--')) {
    const name = option.slice(2);
    const longs = CURL_LONG_ARG.filter((l) => l.startsWith(name));
    const flags = CURL_LONG_FLAG.filter((l) => l.startsWith(name) || `no-${l}`.startsWith(name));
    if (CURL_LONG_ARG.includes(name)) return true;
    if (CURL_LONG_FLAG.includes(name) || CURL_LONG_FLAG.includes(name.replace(/^no-/, ''))) return false;
    if (longs.length + flags.length !== 1) return undefined;
    return longs.length === 1;
  }
  // A cluster `-sSo`: the first letter that takes a value takes it.
  for (const c of option.slice(1)) {
    if (CURL_SHORT_ARG.includes(c)) return true;
    if (!CURL_SHORT_FLAG.includes(c)) return undefined;
  }
  return false;
}

/**
 * A curl config file as the arguments it stands for (tool_parsecfg.c): one option a line, `#` (also `/` and
 * `*`) starting a comment line; `name = value`, `name: value`, `name value` — a name without dashes gets
 * `--`; a dashed name ends at a blank only (curl has no `--opt=value`: strace, 7.88 ignored
 * `--output-dir=/x` with a warning). A value is quoted (`"…"`, with escapes) or runs to the next blank.
 */
export function curlConfigArgs(text: string): { args: string[] } | { uncertain: string } {
  const args: string[] = [];
  for (const line of text.split('\n')) {
    let i = 0;
    while (isSpace(line[i])) i++;
    if (i >= line.length || '#/*'.includes(line[i]!)) continue;
    const dashed = line[i] === '-';
    const start = i;
    while (i < line.length && !isSpace(line[i]) && (dashed || (line[i] !== '=' && line[i] !== ':'))) i++;
    const written = line.slice(start, i);
    while (i < line.length && (isSpace(line[i]) || (!dashed && (line[i] === '=' || line[i] === ':')))) i++;
    let value: string | undefined;
    if (line[i] === '"') value = unquote(line, i + 1);
    else {
      const end = line.slice(i).search(/[ \t\n\v\f\r]/);
      value = end < 0 ? line.slice(i) : line.slice(i, i + end);
      if (value === '') value = undefined;
    }
    const option = dashed ? written : `--${written}`;
    if (option === '-' || option === '--' || option.includes('=')) return { uncertain: `option ${written}` };
    const takes = takesValue(option);
    if (takes === undefined) return { uncertain: `option ${written} is not in curl's table` };
    if (!takes) args.push(option);
    // A value-taking option without a value is an error curl reports and skips.
    else if (value !== undefined) args.push(option, value);
  }
  return { args };
}

/**
 * The arguments curl takes from configuration before (default file) and at (`-K FILE`) its command line,
 * as fields, each file reported by `readConfig` (a marker, and its content applied). `-K -` (stdin), a file
 * that cannot be read or parsed, and a variable of unknown value on the search path are uncertain.
 */
export function curlConfigFields(cx: CommandContext, argv: readonly Field[]): Field[] {
  // Read once a run: curl's path model and its network model both apply the same configuration.
  return cx.once('curl-config', () => configFields(cx, argv));
}

function configFields(cx: CommandContext, argv: readonly Field[]): Field[] {
  const out: Field[] = [];
  const first = argv[0];
  const disabled =
    first !== undefined &&
    first.uncertain === undefined &&
    ((first.value.startsWith('-q') && !first.value.startsWith('--')) || first.value === '--disable');
  if (!disabled) {
    const xdg = cx.variable('XDG_CONFIG_HOME');
    const candidates: { f: Field | null | undefined; maybe: boolean }[] = CURLRC_SEARCH.filter(
      (c) => !(c.unlessXdg && xdg !== undefined && xdg !== ''),
    ).map((c) => ({ f: underVariable(cx, c.variable, c.file), maybe: c.maybe === true }));
    let home: string | undefined;
    try {
      home = userInfo().homedir;
    } catch {}
    if (home) candidates.push({ f: literal(`${home.replace(/\/+$/, '')}/.curlrc`), maybe: false });
    for (const { f, maybe } of candidates) {
      if (f === undefined) continue;
      if (f === null) {
        cx.uncertain('curl finds its config file under a variable whose value is not known', 'write');
        break;
      }
      const r = readConfig(cx, f, RUNS, 'curlrc');
      if ('absent' in r) continue;
      if ('text' in r) out.push(...configFile(cx, r.text, f, 1));
      if (!maybe) break;
    }
  }
  out.push(...explicitConfigs(cx, argv, 0));
  return out;
}

/** The `-K FILE` / `--config FILE` among `args`, each read and expanded (nested `-K` too). */
function explicitConfigs(cx: CommandContext, args: readonly Field[], depth: number): Field[] {
  const p = parseArgs(args, {
    short: CURL_SHORT_ARG,
    shortFlags: CURL_SHORT_FLAG,
    long: CURL_LONG_ARG,
    flags: CURL_LONG_FLAG,
  });
  const out: Field[] = [];
  for (const o of p.opts) {
    if ((o.name !== '-K' && o.name !== '--config') || !o.value) continue;
    const v = o.value;
    if (v.uncertain !== undefined || v.value === '-') {
      cx.uncertain('curl reads more options from a config file that is not known (or stdin)', 'write', v.raw);
      continue;
    }
    // Its content is also shown: curl prints a line it cannot parse in its warning.
    cx.read(v, { tag: 'config' });
    // Another tag than the data read's: the sink keeps one access per origin and path.
    const r = readConfig(cx, v, RUNS, 'config-file');
    if ('text' in r) out.push(...configFile(cx, r.text, v, depth + 1));
    // A -K file that does not exist: curl stops with an error before any transfer.
  }
  return out;
}

function configFile(cx: CommandContext, text: string, f: Field, depth: number): Field[] {
  if (depth > MAX_DEPTH) {
    cx.uncertain('curl config files nest too deeply to follow', 'write', f.raw);
    return [];
  }
  const parsed = curlConfigArgs(text);
  if ('uncertain' in parsed) {
    cx.uncertain(`curl config ${f.raw}: ${parsed.uncertain}`, 'write', f.raw);
    return [];
  }
  const fields = parsed.args.map(configField);
  // Options of a config file apply where it is read; a nested -K is read in turn.
  return [...fields, ...explicitConfigs(cx, fields, depth)];
}
