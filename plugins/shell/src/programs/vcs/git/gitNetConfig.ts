import { posix } from 'node:path';
import type { CommandContext } from '../../../effects/extractTypes.js';
import { variableValue } from '../../network/reach/netReach.js';
import { literal } from '../../spec.js';
import { TRACKING_TAG } from './gitCall.js';
import { type ConfigEntry, parseConfig } from './gitConfig.js';

// The configuration git reads, for where it connects (git-config(1) FILES, ENVIRONMENT, `include`): every
// entry in order, so that "last one wins" and `insteadOf` see what git sees.

/** Every config entry git reads, in order, and what could not be read. */
export interface GitNet {
  entries: ConfigEntry[];
  /** Why the configuration is not known (an unreadable file, `GIT_CONFIG_PARAMETERS`…). */
  unknown?: string;
  /** Which file each remote's url came from, for the origin (`git:.git/config`). */
  where: Map<string, string>;
  /**
   * An earlier command of the line rewrote the repository config's `branch.*` sections only (upstream
   * tracking): every remote's URL is as read, but which remote a branch uses may not be.
   */
  branchesChanged?: boolean;
}

function readGitConfig(cx: CommandContext, path: string, into: GitNet, label: string, depth = 0): void {
  // A config an earlier command of the line rewrites (`git remote set-url`, `git config`, even git's own
  // writes, which readContent leaves to git's model) is not the one git will read — unless the only such
  // writes are git's upstream tracking (`checkout -b`, `branch -u`, `push -u`), which touch `branch.*` alone.
  const tracking = [`git:${TRACKING_TAG}`];
  let skip: readonly string[] | undefined;
  if (cx.writtenEarlier(literal(path))) {
    if (label !== 'git:.git/config' || cx.writtenEarlier(literal(path), tracking)) {
      into.unknown ??= `${path} may be changed by an earlier command of the line`;
      return;
    }
    into.branchesChanged = true;
    skip = tracking;
  }
  const r = cx.readContent(literal(path), 256 * 1024, skip);
  if ('uncertain' in r) {
    if (!/: (ENOENT|ENOTDIR)$/.test(r.uncertain)) into.unknown ??= `${path}: ${r.uncertain}`;
    return;
  }
  for (const e of parseConfig(r.text)) {
    if (e.key === 'include.path' || /^includeif\..*\.path$/.test(e.key)) {
      if (depth >= 4) {
        into.unknown ??= `${path} includes too deeply`;
        continue;
      }
      const home = cx.variable('HOME');
      const inc =
        e.value.startsWith('~/') && typeof home === 'string' ? `${home}/${e.value.slice(2)}` : e.value;
      if (inc.startsWith('~')) {
        into.unknown ??= `${path} includes ${e.value}`;
        continue;
      }
      const file = posix.resolve(posix.dirname(path), inc);
      if (e.key === 'include.path') readGitConfig(cx, file, into, label, depth + 1);
      else {
        // A conditional include: whether it applies is not evaluated; if it could change where git
        // connects, the remote is not known.
        const probe: GitNet = { entries: [], where: new Map() };
        readGitConfig(cx, file, probe, label, depth + 1);
        if (probe.entries.some((x) => /^(url|remote|http)\./.test(x.key)))
          into.unknown ??= `${file} (includeIf) may rewrite remotes`;
      }
      continue;
    }
    into.entries.push(e);
    if (/^remote\..*\.(url|pushurl)$/.test(e.key)) into.where.set(e.key, label);
  }
}

/** Every configuration file git reads, in order (git-config(1) FILES), plus the environment's and `-c`'s. */
export function gitConfiguration(
  cx: CommandContext,
  commonDir: string | null,
  cli: readonly ConfigEntry[],
): GitNet {
  const net: GitNet = { entries: [], where: new Map() };
  const nosystem = variableValue(cx, 'GIT_CONFIG_NOSYSTEM');
  const system = variableValue(cx, 'GIT_CONFIG_SYSTEM');
  if (nosystem === null || system === null) net.unknown ??= 'GIT_CONFIG_SYSTEM/NOSYSTEM is not known';
  else if (nosystem === undefined) readGitConfig(cx, system ?? '/etc/gitconfig', net, 'git:gitconfig');
  const global = variableValue(cx, 'GIT_CONFIG_GLOBAL');
  const home = variableValue(cx, 'HOME');
  const xdg = variableValue(cx, 'XDG_CONFIG_HOME');
  if (global === null || home === null || xdg === null)
    net.unknown ??= 'where the global git config is, is not known';
  else if (global !== undefined) readGitConfig(cx, global, net, 'git:gitconfig');
  else {
    const x = xdg ?? (home !== undefined ? `${home}/.config` : undefined);
    if (x !== undefined) readGitConfig(cx, `${x}/git/config`, net, 'git:gitconfig');
    if (home !== undefined) readGitConfig(cx, `${home}/.gitconfig`, net, 'git:~/.gitconfig');
  }
  if (commonDir !== null) readGitConfig(cx, `${commonDir}/config`, net, 'git:.git/config');
  const count = variableValue(cx, 'GIT_CONFIG_COUNT');
  if (count === null || (count !== undefined && !/^\d+$/.test(count)))
    net.unknown ??= 'GIT_CONFIG_COUNT is not known';
  else
    for (let k = 0; k < Number(count ?? 0) && k < 64; k++) {
      const key = variableValue(cx, `GIT_CONFIG_KEY_${k}`);
      const value = variableValue(cx, `GIT_CONFIG_VALUE_${k}`);
      if (typeof key !== 'string' || value === null) {
        net.unknown ??= `GIT_CONFIG_KEY_${k} is not known`;
        continue;
      }
      net.entries.push(normalisedEntry(key, value ?? ''));
    }
  if (variableValue(cx, 'GIT_CONFIG_PARAMETERS') !== undefined)
    net.unknown ??= 'GIT_CONFIG_PARAMETERS sets configuration';
  for (const e of cli) net.entries.push(normalisedEntry(e.key, e.value));
  return net;
}

/** `url.<base>.insteadof` keeps `<base>` as written; section and name lower-cased (as parseConfig does). */
function normalisedEntry(key: string, value: string): ConfigEntry {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  if (first === -1 || first === last) return { key: key.toLowerCase(), value };
  return {
    key: `${key.slice(0, first).toLowerCase()}.${key.slice(first + 1, last)}.${key.slice(last + 1).toLowerCase()}`,
    value,
  };
}

export function all(net: GitNet, key: string): string[] {
  return net.entries.filter((e) => e.key === key).map((e) => e.value);
}
export function last(net: GitNet, key: string): string | undefined {
  return all(net, key).at(-1);
}
