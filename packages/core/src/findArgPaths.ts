import { isDataKey, keyWords, type PathKeyKind, pathKeyKind } from './pathKeys.js';
import { isRemoteUrl, looksLikePath, looksPathish } from './pathShape.js';

/** One argument value that carries a path, wherever it sits in the arguments. */
export interface ArgPath {
  /** Where it is: `path`, `ops[0].path`, `paths[2]`. */
  where: string;
  /** The name of the argument (the nearest named key above it: `path` for `paths[2]`'s `paths`). */
  key: string;
  /** The value: a string, or something else under a path name (a caller treats that as uncertain). */
  value: unknown;
  /** How it was found: by the argument's name, or only by the shape of its value. */
  by: 'name' | 'shape';
  /** The name's kind (`none` when found by shape). */
  kind: PathKeyKind;
}

export interface FindArgPathsOptions {
  /**
   * `strict`: a file tool's arguments — `end` and `weak` names are paths whatever their value. `loose`: an
   * unknown tool's — those names count only when the value looks like a path, and any other string that is
   * shaped like one (`/x`, `~/x`, `file://…`) counts too, except under data names (`content`, `query`).
   */
  mode: 'strict' | 'loose';
  /** Names never reported (a shell tool's `command`, already analysed elsewhere). */
  skip?: ReadonlySet<string>;
}

export interface ArgPathsResult {
  found: ArgPath[];
  /** Set when the arguments are too deep or too large to walk: the caller fails closed. */
  overflow?: string;
}

const MAX_DEPTH = 32;
const MAX_NODES = 20000;
/** JSON text longer than this inside an argument is content, not a structure to search. */
const MAX_JSON_TEXT = 65536;

/**
 * Every path an argument object carries, at any depth of objects and arrays: by the argument's name
 * (`path`, `*_path`, `*_file`, `source*`, `dest*`, `cwd`…) and, in `loose` mode, by the value's shape. An
 * array under a path name is a list of paths (`paths[]`, `files[]`); an object under one is walked.
 *
 * @example
 * ```ts
 * import { findArgPaths } from '@toolgate/core';
 * findArgPaths({ ops: [{ path: '/root/.ssh/authorized_keys', content: '…' }] }, { mode: 'loose' }).found;
 * // [{ where: 'ops[0].path', key: 'path', value: '/root/.ssh/authorized_keys', by: 'name', kind: 'path' }]
 * ```
 */
export function findArgPaths(args: Record<string, unknown>, options: FindArgPathsOptions): ArgPathsResult {
  const w: Walk = {
    found: [],
    nodes: 0,
    overflow: undefined,
    loose: options.mode === 'loose',
    skip: options.skip,
  };
  visit(w, args, '', '', 'none', 0, false);
  return w.overflow !== undefined ? { found: w.found, overflow: w.overflow } : { found: w.found };
}

/** One walk's state (module-level functions: no closures allocated per call). */
interface Walk {
  found: ArgPath[];
  nodes: number;
  overflow: string | undefined;
  loose: boolean;
  skip: ReadonlySet<string> | undefined;
}

function counts(w: Walk, kind: PathKeyKind, value: string): boolean {
  if (kind === 'path') return true;
  if (kind === 'end' || kind === 'weak') return w.loose ? looksPathish(value) : true;
  if (kind === 'maybe') return looksPathish(value);
  return false;
}

// `inPath`: beneath an argument whose name says path (`path: {uri: "/etc/x"}`): a value shaped like a path
// there is one, even in a file tool's arguments.
function visit(
  w: Walk,
  value: unknown,
  where: string,
  key: string,
  kind: PathKeyKind,
  depth: number,
  inPath: boolean,
): void {
  if (w.overflow !== undefined) return;
  if (++w.nodes > MAX_NODES) {
    w.overflow = `more than ${MAX_NODES} argument values`;
    return;
  }
  if (depth > MAX_DEPTH) {
    w.overflow = `arguments nested deeper than ${MAX_DEPTH}`;
    return;
  }
  const loose = w.loose;
  if (typeof value === 'string') {
    if (kind !== 'none' && counts(w, kind, value)) {
      // A remote URL under a path name (`file: "https://…"`) is fetched, not opened here.
      if (!isRemoteUrl(value)) w.found.push({ where, key, value, by: 'name', kind });
      return;
    }
    if (isDataKey(key)) return;
    // A `file://` URI is a path in any tool; other shapes count where the tool is not known (or beneath
    // a path-named argument).
    if ((loose || inPath || /^file:/i.test(value)) && looksLikePath(value)) {
      w.found.push({ where, key, value, by: 'shape', kind });
      return;
    }
    // An unknown tool's argument may be JSON text (`{"payload": "{\"path\": \"/etc/x\"}"}`): what it
    // holds is walked as if it were the argument itself.
    if (loose && /^\s*[[{]/.test(value) && value.length <= MAX_JSON_TEXT) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(value);
      } catch {
        return;
      }
      if (parsed !== null && typeof parsed === 'object')
        visit(w, parsed, `${where}(json)`, key, kind, depth + 1, inPath);
    }
    return;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) visit(w, value[i], `${where}[${i}]`, key, kind, depth + 1, inPath);
    return;
  }
  if (value !== null && typeof value === 'object') {
    // A file tool's top-level path argument given an object (`read_file {path: {}}`): reported, so the
    // caller refuses a path it cannot read; what is inside is walked as well.
    if (!loose && kind === 'path' && depth === 1) w.found.push({ where, key, value, by: 'name', kind });
    const under = inPath || kind === 'path';
    for (const k in value) {
      if (!Object.hasOwn(value, k)) continue;
      if (depth === 0 && w.skip?.has(k)) continue;
      // A map keyed by path (`files: {"/etc/cron.d/x": "* * * * * …"}`, `{"~/.ssh/config": …}`): the key
      // names a file as surely as a value would (hidden corpus: a path as an object key was never judged).
      if ((loose || under || /^file:/i.test(k)) && !isRemoteUrl(k) && looksLikePath(k))
        w.found.push({
          where: `${where === '' ? '' : where}[${JSON.stringify(k)}]`,
          key: k,
          value: k,
          by: 'shape',
          kind: 'none',
        });
      visit(
        w,
        (value as Record<string, unknown>)[k],
        where === '' ? k : `${where}.${k}`,
        k,
        pathKeyKind(k),
        depth + 1,
        under,
      );
    }
    return;
  }
  // A number or boolean under a path name is no path; a file tool's top-level path argument given one
  // is reported so the caller can refuse it (`read_file {path: 42}`).
  if (kind === 'path' && depth === 1 && value !== undefined && value !== null)
    w.found.push({ where, key, value, by: 'name', kind });
}

/**
 * Whether a call's arguments carry anything that is, or looks like, a path (loose mode). Core asks it when
 * no policy plugin is installed, so a file tool is not allowed just because nobody extracted its paths.
 */
export function argsTouchPaths(args: Record<string, unknown>): boolean {
  // A command touches whatever it names: without a policy, a shell tool is a file tool too.
  if (Object.keys(args).some((k) => COMMAND_WORDS.has(keyWords(k).at(-1) ?? ''))) return true;
  const r = findArgPaths(args, { mode: 'loose' });
  return r.overflow !== undefined || r.found.length > 0;
}

const COMMAND_WORDS = new Set(['command', 'commands', 'cmd', 'cmds', 'script', 'argv', 'cmdline']);
