import type { CommandContext } from '../effects/extractTypes.js';
import type { Field } from '../state/expandWord.js';
import { has, type ParsedArgs, values } from './argv.js';
import { readScripts, runScript } from './packageScripts.js';
import { literal } from './spec.js';

// Package-manager commands that act on the project's own files rather than on node_modules: `init`, `pkg`,
// `pack` (npm-init(1), npm-pkg(1), npm-pack(1); pnpm and yarn have `init` and `pack` with the same effect).

/** `name` inside the package directory `dir`. */
export function inPackage(dir: Field, name: string): Field {
  return dir.value === '.'
    ? literal(name)
    : { ...dir, value: `${dir.value.replace(/\/+$/, '')}/${name}`, glob: -1 };
}

const words = (args: readonly Field[]) =>
  args.filter((a) => a.uncertain !== undefined || !a.value.startsWith('-'));

/**
 * `init`: writes package.json (reading it first when it exists) in the package directory — and in the cwd
 * when that differs, as npm versions disagree on which. `npm init <initializer>` is `npm exec
 * create-<initializer>`: a download that runs (uncertain); so is `~/.npm-init.js`, a module npm init loads.
 */
export function init(cx: CommandContext, dir: Field, args: readonly Field[]): void {
  const initializer = words(args)[0];
  if (initializer !== undefined) {
    cx.uncertain(`${cx.name} init ${initializer.raw}: downloads and runs an initializer package`);
    return;
  }
  const npmInit = { ...literal('~/.npm-init.js'), tilde: true };
  if (cx.name === 'npm' && cx.exists(npmInit)) {
    cx.uncertain('npm init loads ~/.npm-init.js, code we do not analyse');
    return;
  }
  const files =
    dir.value === '.' ? [literal('package.json')] : [inPackage(dir, 'package.json'), literal('package.json')];
  for (const pkg of files) {
    if (cx.exists(pkg)) cx.read(pkg, { tag: 'init' });
    cx.write(pkg, { tag: 'init' });
  }
}

/** `npm pkg get|set|delete|fix`: reads package.json; all but `get` rewrite it. */
export function pkg(cx: CommandContext, dir: Field, args: readonly Field[]): void {
  const file = inPackage(dir, 'package.json');
  const action = words(args)[0];
  cx.read(file, { tag: 'pkg' });
  if (action === undefined || action.value === 'get') return;
  if (action.uncertain === undefined && ['set', 'delete', 'fix'].includes(action.value)) {
    cx.write(file, { tag: 'pkg' });
    return;
  }
  cx.uncertain(`${cx.name} pkg ${action.raw}: not an action we model`);
}

/**
 * `pack`: reads the package's files (every file beneath its directory: which ones `files`, `.npmignore` and
 * `.gitignore` leave out is not modelled, so all count), runs its `prepack`, `prepare` and `postpack`
 * scripts, and — unless `--dry-run` — writes `<name>-<version>.tgz` (a scope `@s/n` gives `s-n-…`) into
 * the cwd or `--pack-destination`, named from package.json.
 */
export function pack(cx: CommandContext, dir: Field, p: ParsedArgs, ignoreScripts: boolean): void {
  cx.read(dir, { scope: 'subtree', tag: 'pack' });
  const file = inPackage(dir, 'package.json');
  if (!ignoreScripts) {
    const s = readScripts(cx, file);
    if ('uncertain' in s) {
      cx.uncertain(`${cx.name} pack: ${s.uncertain}`);
      return;
    }
    for (const name of ['prepack', 'prepare', 'postpack'])
      runScript(cx, s.scripts, name, { prePost: false, args: [], via: `${cx.name} pack`, dir });
  }
  if (has(p, '--dry-run')) return;
  const c = cx.readContent(file);
  let tarball: string | undefined;
  if (!('uncertain' in c)) {
    try {
      const json = JSON.parse(c.text) as { name?: unknown; version?: unknown };
      if (typeof json.name === 'string' && typeof json.version === 'string')
        tarball = `${json.name.replace(/^@/, '').replace(/\//g, '-')}-${json.version}.tgz`;
    } catch {
      // Not JSON: npm fails before writing anything; judged as not known all the same.
    }
  }
  if (tarball === undefined || !/^[A-Za-z0-9._~+-]+$/.test(tarball)) {
    cx.uncertain(`${cx.name} pack: the tarball's name is not known`);
    return;
  }
  const dest = values(p, '--pack-destination')[0] ?? literal('.');
  cx.write(inPackage(dest, tarball), { tag: 'pack' });
}
