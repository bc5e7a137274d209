import { existsSync } from 'node:fs';
import { posix } from 'node:path';
import type { SubtreeFilter } from '@toolgate/core';
import type { CommandContext } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { has, type ParsedArgs, values } from '../argv.js';
import { literal } from '../spec.js';
import { GitignoreRules } from '../vcs/git/gitignoreRules.js';
import { lineMayWrite } from '../vcs/git/lineWrites.js';
import { readScripts, runScript } from './packageScripts.js';

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
 * `pack`: reads the package's files — every file beneath its directory but those its ignore files leave out
 * (see packlistFilter) — runs its `prepack`, `prepare` and `postpack` scripts, and — unless `--dry-run` —
 * writes `<name>-<version>.tgz` (a scope `@s/n` gives `s-n-…`) into the cwd or `--pack-destination`, named
 * from package.json.
 */
export function pack(cx: CommandContext, dir: Field, p: ParsedArgs, ignoreScripts: boolean): void {
  const filter = packlistFilter(cx, dir);
  cx.read(dir, { scope: 'subtree', tag: 'pack', ...(filter ? { filter } : {}) });
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

/** Names npm always packs at the package root, whatever an ignore file says (npm-packlist). */
const ALWAYS_PACKED =
  /^(package\.json|readme|license|licence|copying|notice|changelog|changes|history)(\.[^/]*)?$/i;

/**
 * What npm-packlist leaves out of a package with no `files` list: in each directory what its `.npmignore`
 * ignores — or its `.gitignore` where there is no `.npmignore` — with git's precedence, and the root's `.git`
 * and `node_modules`. Checked under strace with npm 10 (`npm pack --dry-run`): a gitignored `.env` and a
 * gitignored directory are never opened, a gitignored README is. Never skipped: what npm packs whatever the
 * ignore files say (package.json, README, LICENSE…, `main`, `bin`, and everything in their directories). None (every file counts) with a `files`
 * list or bundled dependencies (not modelled), a package.json we cannot read, or an ignore file the line may
 * write first.
 */
function packlistFilter(cx: CommandContext, dir: Field): SubtreeFilter | undefined {
  const root = cx.resolveDir(dir);
  if (root === null) return undefined;
  const c = cx.readContent(inPackage(dir, 'package.json'));
  if ('uncertain' in c) return undefined;
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(c.text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (json === null || typeof json !== 'object') return undefined;
  if (
    json.files !== undefined ||
    json.bundleDependencies !== undefined ||
    json.bundledDependencies !== undefined
  )
    return undefined;
  const packed = new Set<string>();
  const entry = (v: unknown) => {
    if (typeof v === 'string') packed.add(posix.normalize(v).replace(/^\.\//, ''));
  };
  entry(json.main);
  if (typeof json.bin === 'object' && json.bin !== null) for (const v of Object.values(json.bin)) entry(v);
  else entry(json.bin);
  const fileIn = (d: string) => (existsSync(posix.join(root, d, '.npmignore')) ? '.npmignore' : '.gitignore');
  // Whether the line may write either ignore file of that directory (which one npm reads could change too).
  const mayBeWritten = (f: string) =>
    lineMayWrite(cx, posix.join(posix.dirname(f), '.npmignore')) ||
    lineMayWrite(cx, posix.join(posix.dirname(f), '.gitignore'));
  const rules = new GitignoreRules(root, [], mayBeWritten, fileIn);
  // npm packs the whole of a directory on the way to such a file, even one an ignore file ignores (measured:
  // `dist/` ignored, `main: dist/index.js` ⇒ dist/other.js packed too): nothing there is skipped.
  const onTheWay = new Set<string>();
  for (const f of packed)
    for (let d = posix.dirname(f); d !== '.' && d !== '/'; d = posix.dirname(d)) onTheWay.add(d);
  return {
    name: `npm-packlist ignore files of ${root}`,
    skips(rel, isDir) {
      if (!rel.includes('/')) {
        if (ALWAYS_PACKED.test(rel)) return false;
        if (isDir && (rel === '.git' || rel === 'node_modules')) return true;
      }
      for (let d = posix.dirname(rel); d !== '.'; d = posix.dirname(d)) if (onTheWay.has(d)) return false;
      if (packed.has(rel) || (isDir && onTheWay.has(rel))) return false;
      return rules.ignored(rel, isDir) === true;
    },
  };
}
