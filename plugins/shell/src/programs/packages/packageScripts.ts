import type { CommandContext } from '../../effects/extractTypes.js';
import { DEFAULT_PATH } from '../../state/defaultPath.js';
import type { Field } from '../../state/expandWord.js';

/** Single-quotes a word for the shell, so arguments appended to a script stay one word each. */
function quote(v: string): string {
  return /^[A-Za-z0-9_./=:@%+-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`;
}

/** The `scripts` of a package.json, or a reason it cannot be read with certainty. */
export function readScripts(
  cx: CommandContext,
  pkg: Field,
): { scripts: Record<string, string> } | { uncertain: string } {
  cx.read(pkg, { tag: 'package.json' });
  const content = cx.readContent(pkg);
  if ('uncertain' in content) return content;
  try {
    const json = JSON.parse(content.text) as { scripts?: unknown };
    const scripts: Record<string, string> = {};
    if (json.scripts !== undefined && (typeof json.scripts !== 'object' || json.scripts === null))
      return { uncertain: `${content.path}: "scripts" is not an object` };
    for (const [k, v] of Object.entries((json.scripts ?? {}) as Record<string, unknown>)) {
      if (typeof v !== 'string') return { uncertain: `${content.path}: script ${k} is not a string` };
      scripts[k] = v;
    }
    return { scripts };
  } catch {
    return { uncertain: `${content.path} is not valid JSON` };
  }
}

export interface RunOptions {
  /** npm and yarn 1 run `preX` and `postX` around `X`; pnpm ≥ 7 and yarn ≥ 2 do not, but judging them costs nothing. */
  prePost: boolean;
  /** Arguments appended to the script's command line (`npm run test -- --watch`). */
  args: readonly Field[];
  via: string;
  /** The package directory, where the scripts run. */
  dir: Field;
}

/** A script as run in `dir` (package managers run scripts in the package directory). */
export function inDir(dir: Field, text: string): string {
  return dir.value === '.' ? text : `cd ${quote(dir.value)} && (${text}\n)`;
}

/**
 * The PATH a package manager gives a script: `node_modules/.bin` of the package directory and of each of its
 * ancestors, nearest first (npm's run-script; pnpm and yarn likewise), before the caller's PATH. A program
 * found there is the project's own code (program identity: the policy says whether the agent can write it).
 */
export function scriptPath(cx: CommandContext, dir: Field): string | undefined {
  const real = cx.resolveDir(dir);
  if (real === null) return undefined;
  const bins: string[] = [];
  for (let d = real; ; d = d.slice(0, d.lastIndexOf('/')) || '/') {
    bins.push(`${d === '/' ? '' : d}/node_modules/.bin`);
    if (d === '/') break;
  }
  return bins.join(':');
}

/**
 * Analyses script `name` (and its pre/post scripts) as shell, the way the package manager runs it: with
 * `sh -c` in the package directory, `node_modules/.bin` on PATH (see scriptPath): `vitest run` runs
 * `node_modules/.bin/vitest`, code the agent can write, so such a script is uncertain; `rm -rf dist` is
 * judged as written. Returns `false` when the script does not exist.
 */
export function runScript(
  cx: CommandContext,
  scripts: Record<string, string>,
  name: string,
  o: RunOptions,
): boolean {
  const main = scripts[name];
  if (main === undefined) return false;
  if (o.args.some((a) => a.uncertain !== undefined)) {
    cx.uncertain(`${o.via}: an argument passed to script ${name} is not known`);
    return true;
  }
  const extra = o.args.map((a) => quote(a.value)).join(' ');
  const bins = scriptPath(cx, o.dir);
  if (bins === undefined) {
    cx.uncertain(`${o.via}: the package directory is not known, nor which programs its scripts run`);
    return true;
  }
  // The caller's PATH follows; unset, a shell's default would (npm passes none then: only the bins).
  const path = `PATH=${quote(bins)}:"\${PATH:-${DEFAULT_PATH}}"; `;
  const order = o.prePost ? [`pre${name}`, name, `post${name}`] : [name];
  for (const s of order) {
    const text = scripts[s];
    if (text === undefined) continue;
    cx.script(path + inDir(o.dir, s === name && extra !== '' ? `${text} ${extra}` : text), `${o.via} ${s}`);
  }
  return true;
}
