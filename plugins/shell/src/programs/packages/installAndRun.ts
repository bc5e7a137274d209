import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CommandContext } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { literal } from '../spec.js';
import { CLEAN_INSTALL, INSTALL_SCRIPTS, type Manager, NPMRC_CODE, PLAIN_INSTALL } from './npmOptions.js';
import { inPackage } from './packageFiles.js';
import { inDir, readScripts, runScript } from './packageScripts.js';

// What npm, pnpm and yarn do to a project: find its directory, install into it, run its scripts and the
// binaries of its node_modules/.bin.

const join = inPackage;

/**
 * The package directory: the nearest ancestor holding a package.json (npm, pnpm and yarn all look upwards
 * from the cwd), or the given directory when there is none.
 */
export function projectDir(cx: CommandContext, start: Field): Field {
  const real = cx.resolveDir(start);
  if (real === null) return start;
  for (let d = real; ; d = dirname(d)) {
    if (existsSync(`${d}/package.json`)) return d === real ? start : literal(d);
    if (d === '/') return start;
  }
}

/** A project `.npmrc` that sets a program npm runs is code from the workspace. */
export function projectNpmrc(cx: CommandContext, dir: Field): void {
  const rc = join(dir, '.npmrc');
  if (!cx.exists(rc)) return;
  const c = cx.readContent(rc, 64 * 1024);
  if ('uncertain' in c) cx.uncertain(`${cx.name}: cannot read ${rc.raw}: ${c.uncertain}`);
  else if (NPMRC_CODE.test(c.text)) cx.uncertain(`${cx.name}: ${rc.raw} sets a program it runs`);
}

export function lockfile(m: Manager): string {
  return m === 'npm' ? 'package-lock.json' : m === 'pnpm' ? 'pnpm-lock.yaml' : 'yarn.lock';
}

/** Runs the project's own install lifecycle scripts (dependencies' scripts cannot be seen: see README). */
export function install(
  cx: CommandContext,
  m: Manager,
  dir: Field,
  args: readonly Field[],
  ignoreScripts: boolean,
  sub = 'install',
): void {
  // Scripts first: package.json is read before the install rewrites it.
  if (!ignoreScripts) {
    const s = readScripts(cx, join(dir, 'package.json'));
    if (!('uncertain' in s))
      for (const name of INSTALL_SCRIPTS)
        runScript(cx, s.scripts, name, { prePost: false, args: [], via: cx.name, dir });
    else if (cx.exists(join(dir, 'package.json'))) cx.uncertain(`${cx.name}: ${s.uncertain}`);
  }
  // Dependencies' own lifecycle scripts (preinstall/install/postinstall of every package installed): npm and
  // yarn run them, pnpm ≥ 10 only for the packages its onlyBuiltDependencies allows. Code nobody analysed.
  const removes = /^(uninstall|remove|rm|r|un|unlink)$/.test(sub);
  if (!ignoreScripts && !removes && dependencyScriptsRun(cx, m, dir, args))
    cx.uncertain(
      `${cx.name} ${sub} runs the lifecycle scripts of the packages it installs: code that is not analysed`,
    );
  // `npm install ./dir` / `file:../x` installs a local folder: it is read (and its scripts run).
  for (const a of args) {
    if (a.uncertain !== undefined) cx.uncertain(`${cx.name}: a package spec is not known`);
    else if (/^(\.{0,2}\/|~|file:)/.test(a.value)) {
      cx.read({ ...a, value: a.value.replace(/^file:/, '') }, { scope: 'subtree', tag: 'local-package' });
      if (!ignoreScripts) cx.uncertain(`${cx.name}: installing ${a.raw} runs its lifecycle scripts`);
    }
  }
  cx.write(join(dir, 'node_modules'), { scope: 'subtree', tag: 'install' });
  // `npm ci` never writes package.json or the lockfile (npm-ci(1)); a plain `install` rewrites the lockfile
  // only; adding, updating or removing packages rewrites both. Saying package.json is written when it is not
  // made a later `npm test` of the line uncertain (`npm ci || npm install`).
  if (CLEAN_INSTALL.has(sub)) return;
  cx.write(join(dir, lockfile(m)), { tag: 'install' });
  if (!PLAIN_INSTALL.has(sub) || args.length > 0) cx.write(join(dir, 'package.json'), { tag: 'install' });
}

// pnpm settings that let dependencies' build scripts run (pnpm 10 runs none by default).
const PNPM_BUILDS =
  /onlyBuiltDependencies|dangerouslyAllowAllBuilds|dangerously-allow-all-builds|neverBuiltDependencies/;

/** Whether installing runs dependencies' lifecycle scripts: any dependency (or a named package), per manager. */
function dependencyScriptsRun(cx: CommandContext, m: Manager, dir: Field, args: readonly Field[]): boolean {
  const named = args.some((a) => !a.value.startsWith('-'));
  const pkg = cx.readContent(join(dir, 'package.json'));
  let deps = named;
  if (!('uncertain' in pkg)) {
    try {
      const json = JSON.parse(pkg.text) as Record<string, unknown>;
      for (const k of ['dependencies', 'devDependencies', 'optionalDependencies'])
        if (json[k] && typeof json[k] === 'object' && Object.keys(json[k] as object).length > 0) deps = true;
    } catch {
      deps = true;
    }
  } else deps = true;
  if (!deps) return false;
  if (m !== 'pnpm') return true;
  for (const f of ['package.json', 'pnpm-workspace.yaml', '.npmrc']) {
    const c = cx.readContent(join(dir, f), 256 * 1024);
    if ('text' in c && PNPM_BUILDS.test(c.text)) return true;
  }
  return false;
}

export function run(
  cx: CommandContext,
  m: Manager,
  dir: Field,
  name: Field | undefined,
  args: readonly Field[],
): void {
  if (name === undefined) {
    cx.read(join(dir, 'package.json'), { tag: 'package.json' }); // `npm run` lists the scripts
    return;
  }
  if (name.uncertain !== undefined) {
    cx.uncertain(`${cx.name} run: the script name is not known`);
    return;
  }
  const s = readScripts(cx, join(dir, 'package.json'));
  if ('uncertain' in s) {
    cx.uncertain(`${cx.name} run ${name.value}: ${s.uncertain}`);
    return;
  }
  const passed = args[0]?.value === '--' ? args.slice(1) : args;
  if (runScript(cx, s.scripts, name.value, { prePost: true, args: passed, via: `${cx.name} run`, dir }))
    return;
  if (name.value === 'start' && cx.exists(join(dir, 'server.js'))) {
    cx.script(inDir(dir, 'node server.js'), `${cx.name} start`); // npm's default start script
    return;
  }
  if (name.value === 'restart') {
    runScript(cx, s.scripts, 'stop', { prePost: true, args: [], via: `${cx.name} restart`, dir });
    runScript(cx, s.scripts, 'start', { prePost: true, args: [], via: `${cx.name} restart`, dir });
    return;
  }
  if (m !== 'npm') {
    // pnpm and yarn run a binary of node_modules/.bin of that name when no script has it.
    bin(cx, dir, name, passed);
    return;
  }
  // npm: "Missing script": it exits without running anything.
}

/** Runs `name` from `node_modules/.bin` (npx, `pnpm exec`, `yarn NAME`), or is uncertain when it is not there. */
export function bin(cx: CommandContext, dir: Field, name: Field, args: readonly Field[]): void {
  if (name.uncertain !== undefined || name.value.includes('/')) {
    cx.uncertain(`${cx.name}: the program to run is not known`);
    return;
  }
  const local = join(dir, `node_modules/.bin/${name.value}`);
  if (!cx.exists(local)) {
    cx.uncertain(
      `${cx.name} ${name.value}: not installed in the project, it would download and run a package`,
    );
    return;
  }
  // The project's own bin: program identity judges the file (code the agent can usually write).
  cx.exec([local, ...args]);
}
