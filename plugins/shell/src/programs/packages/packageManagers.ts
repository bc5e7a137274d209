import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CommandContext, CommandHandler } from '../effects/extractTypes.js';
import type { Field } from '../state/expandWord.js';
import { has, parseArgs, values } from './argv.js';
import { init, inPackage, pack, pkg } from './packageFiles.js';
import { inDir, readScripts, runScript } from './packageScripts.js';
import { workspacePackages } from './packageWorkspaces.js';
import { pythonPackages } from './pythonPackages.js';
import { emitOptions, literal } from './spec.js';

// npm, pnpm, yarn and npx. Effects from the npm/pnpm/yarn documentation, checked under strace in a scratch
// project: install-like commands write `node_modules` and the lockfile (and package.json when adding or
// removing); scripts run with `sh -c` in the package directory.

type Manager = 'npm' | 'pnpm' | 'yarn';

const INSTALL = new Set([
  'install',
  'i',
  'in',
  'ins',
  'inst',
  'insta',
  'instal',
  'isnt',
  'isntal',
  'isntall',
  'add',
  'ci',
  'clean-install',
  'ic',
  'install-clean',
  'isntall-clean',
  'update',
  'up',
  'upgrade',
  'udpate',
  'uninstall',
  'un',
  'unlink',
  'remove',
  'rm',
  'r',
  'dedupe',
  'ddp',
  'prune',
  'rebuild',
  'rb',
  'link',
  'ln',
  'import',
  'install-test',
  'it',
  'install-ci-test',
  'cit',
]);
/** Commands that read the project (and `node_modules`) and print. */
const READ = new Set([
  'ls',
  'list',
  'll',
  'la',
  'outdated',
  'view',
  'info',
  'show',
  'v',
  'search',
  'help',
  'root',
  'prefix',
  'bin',
  'whoami',
  'ping',
  'explain',
  'why',
  'fund',
  'query',
  'sbom',
  'licenses',
  'owner',
  'access',
  'dist-tag',
  'team',
  'token',
  'doctor',
  'store',
  'outdated',
  'audit',
  'config',
  'get',
  'c',
]);
/** Lifecycle scripts of the project itself that an install runs (npm docs: "Life Cycle Operation Order"). */
const INSTALL_SCRIPTS = [
  'preinstall',
  'install',
  'postinstall',
  'prepublish',
  'preprepare',
  'prepare',
  'postprepare',
];
const RUN = new Set(['run', 'run-script', 'rum', 'urn']);
const SHORT_RUN: Readonly<Record<string, string>> = {
  test: 'test',
  t: 'test',
  tst: 'test',
  start: 'start',
  stop: 'stop',
  restart: 'restart',
};
/** npm config keys whose value is a program npm runs (npm-config(7)): in a project's .npmrc that is code. */
const NPMRC_CODE =
  /^\s*(script-shell|node-options|shell|git|editor|browser|viewer|onload-script|init-module)\s*=/m;

/** Options that take a value, for all three (unknown ones are left as they are: npm accepts any config key). */
const SPEC = {
  short: 'Cwc',
  long: [
    'pack-destination',
    'prefix',
    'dir',
    'cwd',
    'filter',
    'workspace',
    'registry',
    'tag',
    'loglevel',
    'userconfig',
    'globalconfig',
    'cache',
    'script-shell',
    'node-options',
    'call',
    'package',
    'location',
    'reporter',
    'store-dir',
    'modules-dir',
    'virtual-store-dir',
    'lockfile-dir',
    'otp',
    'access',
    'scope',
    'network-concurrency',
    'omit',
    'include',
    'install-strategy',
    'save-prefix',
  ],
  // Listed so getopt-style abbreviation does not read `--global` as `--globalconfig VALUE`.
  flags: [
    'global',
    'ignore-scripts',
    'save',
    'save-dev',
    'save-exact',
    'save-optional',
    'save-peer',
    'production',
    'legacy-peer-deps',
    'force',
    'dry-run',
    'json',
    'silent',
    'frozen-lockfile',
    'prefer-offline',
    'no-save',
    'workspaces',
    'recursive',
    'include-workspace-root',
    'if-present',
    'yes',
    'offline',
    'dev',
    'exact',
    'no-audit',
    'no-fund',
    'verbose',
    'quiet',
    'immutable',
    'pure-lockfile',
    'no-lockfile',
    'strict-peer-deps',
  ],
};
/** pnpm: `-F` is `--filter PATTERN`, and `-w` is `--workspace-root`, a flag (npm's `-w` takes a workspace). */
const PNPM_SPEC = { ...SPEC, short: 'CcF', flags: [...SPEC.flags, 'workspace-root'] };

const join = inPackage;

/**
 * The package directory: the nearest ancestor holding a package.json (npm, pnpm and yarn all look upwards
 * from the cwd), or the given directory when there is none.
 */
function projectDir(cx: CommandContext, start: Field): Field {
  const real = cx.resolveDir(start);
  if (real === null) return start;
  for (let d = real; ; d = dirname(d)) {
    if (existsSync(`${d}/package.json`)) return d === real ? start : literal(d);
    if (d === '/') return start;
  }
}

/** A project `.npmrc` that sets a program npm runs is code from the workspace. */
function projectNpmrc(cx: CommandContext, dir: Field): void {
  const rc = join(dir, '.npmrc');
  if (!cx.exists(rc)) return;
  const c = cx.readContent(rc, 64 * 1024);
  if ('uncertain' in c) cx.uncertain(`${cx.name}: cannot read ${rc.raw}: ${c.uncertain}`);
  else if (NPMRC_CODE.test(c.text)) cx.uncertain(`${cx.name}: ${rc.raw} sets a program it runs`);
}

function lockfile(m: Manager): string {
  return m === 'npm' ? 'package-lock.json' : m === 'pnpm' ? 'pnpm-lock.yaml' : 'yarn.lock';
}

/** Runs the project's own install lifecycle scripts (dependencies' scripts cannot be seen: see README). */
function install(
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

const CLEAN_INSTALL = new Set(['ci', 'clean-install', 'ic', 'install-clean', 'isntall-clean']);
const PLAIN_INSTALL = new Set([
  'install',
  'i',
  'in',
  'ins',
  'inst',
  'insta',
  'instal',
  'isnt',
  'isntal',
  'isntall',
]);

function run(
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
function bin(cx: CommandContext, dir: Field, name: Field, args: readonly Field[]): void {
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
  cx.exec([literal(name.value), ...args]);
}

/** Subcommands the handler below models as themselves; any other pnpm/yarn subcommand names a script. */
const NAMED = new Set([
  'exec',
  'x',
  'dlx',
  '--version',
  '-v',
  'version',
  'init',
  'pkg',
  'pack',
  'link',
  'ln',
  'global',
]);

/**
 * pnpm's own commands (pnpm 10 `pnpm help`) that the handler does not model by name: with `-r` they are not
 * scripts (`pnpm -r rebuild` rebuilds), so uncertain.
 */
const PNPM_COMMANDS = new Set(
  'approve-builds bin cat-file cat-index config create dedupe deploy doctor env fetch find-hash ignored-builds import install-test licenses outdated patch patch-commit patch-remove prune publish rebuild rb recursive root self-update server setup store unlink why'.split(
    ' ',
  ),
);

function namedCommand(name: string): boolean {
  return (
    INSTALL.has(name) || RUN.has(name) || SHORT_RUN[name] !== undefined || READ.has(name) || NAMED.has(name)
  );
}

/** npm/pnpm/yarn: the project directory, then the subcommand. */
function packageManager(m: Manager, dirOpts: readonly string[]): CommandHandler {
  return (cx) => {
    const p = parseArgs(cx.args, { ...(m === 'pnpm' ? PNPM_SPEC : SPEC), posix: m !== 'npm' });
    emitOptions(cx, p, {
      '--userconfig': 'read',
      '--globalconfig': 'read',
      '--cache': 'write',
      '--store-dir': 'write',
    });
    if (values(p, '--script-shell', '--node-options').length > 0)
      cx.uncertain(`${cx.name}: --script-shell/--node-options sets a program it runs`);
    const dir = projectDir(cx, values(p, ...dirOpts)[0] ?? literal('.'));
    // pnpm and yarn parse POSIX-style here, so a `-g` after the subcommand is among the operands.
    const global =
      has(p, '-g', '--global') ||
      values(p, '--location').some((f) => f.value === 'global') ||
      p.operands.some((f) => f.value === '-g' || f.value === '--global' || f.value === '--location=global');
    const [sub, ...args] = m === 'npm' ? p.operands : p.operands;
    projectNpmrc(cx, dir);
    const ignoreScripts = cx.args.some((f) => f.value === '--ignore-scripts');
    if (sub === undefined && m !== 'yarn') return; // usage or `--version`: prints only
    const name = sub?.value ?? 'install'; // `yarn` alone installs
    if (sub?.uncertain !== undefined) {
      cx.uncertain(`${cx.name}: the subcommand is not known`);
      return;
    }
    // pnpm and yarn read `-r`/`--filter` after the subcommand too, or pass them to the script: either way
    // unknown here which, so uncertain (as the global flags above).
    if (
      m !== 'npm' &&
      args.some((f) => /^(-r|--recursive|-F|--filter(=.*)?|--workspace(s|-root)?(=.*)?|-w)$/.test(f.value))
    ) {
      cx.uncertain(`${cx.name}: a workspace option after the subcommand`);
      return;
    }
    if (
      values(p, '-w', '--workspace', '--filter', '-F').length > 0 ||
      has(p, '-r', '--recursive', '--workspaces', '-ws', '--workspace-root') ||
      (m === 'pnpm' && has(p, '-w'))
    ) {
      // A script run in workspace packages (each of them, judged); any other command there stays uncertain.
      const script = RUN.has(name)
        ? { name: args[0], args: args.slice(1) }
        : SHORT_RUN[name] !== undefined
          ? { name: literal(SHORT_RUN[name]!), args }
          : m !== 'npm' && !namedCommand(name) && !PNPM_COMMANDS.has(name)
            ? { name: sub, args }
            : undefined;
      if (script?.name === undefined || script.name.uncertain !== undefined) {
        cx.uncertain(`${cx.name} ${name}: in workspace packages, only scripts are modelled`);
        return;
      }
      const ws = workspacePackages(cx, m === 'pnpm', dir);
      if ('uncertain' in ws) {
        cx.uncertain(`${cx.name}: the workspace packages are not known (${ws.uncertain})`);
        return;
      }
      const passed = script.args[0]?.value === '--' ? script.args.slice(1) : script.args;
      for (const pkgDir of ws.dirs) {
        const s = readScripts(cx, join(pkgDir, 'package.json'));
        if ('uncertain' in s) cx.uncertain(`${cx.name} ${script.name.value}: ${s.uncertain}`);
        // A package without the script is skipped (pnpm: measured, pnpm 10 — a bare name runs as `run` does,
        // no binary fallback) or an error that runs nothing there (npm).
        else
          runScript(cx, s.scripts, script.name.value, {
            prePost: true,
            args: passed,
            via: `${cx.name} ${script.name.value} in ${pkgDir.value}`,
            dir: pkgDir,
          });
      }
      return;
    }
    // `npm link` with no package links this one into the global prefix (npm-link(1)).
    const linksGlobally = (name === 'link' || name === 'ln') && m !== 'yarn' && args.length === 0;
    if (global || linksGlobally || (m === 'yarn' && name === 'global')) {
      cx.uncertain(`${cx.name} -g writes to a global prefix outside the project`);
      return;
    }
    if (name === 'exec' || name === 'x' || name === 'dlx') {
      const call = values(p, '-c', '--call')[0];
      if (call) cx.script(call.value, `${cx.name} exec -c`);
      else if (name === 'dlx') cx.uncertain(`${cx.name} dlx downloads and runs a package`);
      else if (values(p, '--package').length > 0)
        cx.uncertain(`${cx.name} exec --package downloads and runs a package`);
      else if (args[0]) bin(cx, dir, args[0], args.slice(1));
      return;
    }
    if (INSTALL.has(name)) {
      install(cx, m, dir, args, ignoreScripts, name);
      if (name === 'install-test' || name === 'it' || name === 'install-ci-test' || name === 'cit')
        run(cx, m, dir, literal('test'), []);
      return;
    }
    if (RUN.has(name)) {
      run(cx, m, dir, args[0], args.slice(1));
      return;
    }
    if (SHORT_RUN[name] !== undefined) {
      run(cx, m, dir, literal(SHORT_RUN[name]!), args);
      return;
    }
    if (READ.has(name)) {
      if ((name === 'config' || name === 'c') && args[0] && !['get', 'list', 'ls'].includes(args[0].value)) {
        const key = args[1]?.value ?? '';
        if (
          args[1]?.uncertain !== undefined ||
          /^(script-shell|node-options|shell|git|editor|browser|viewer)/.test(key)
        )
          cx.uncertain(`${cx.name} config: ${key} sets a program it runs`);
        cx.write({ value: '~/.npmrc', raw: '~/.npmrc', glob: -1, tilde: true }, { tag: 'config' });
        return;
      }
      if (name === 'audit' && args[0]?.value === 'fix') {
        install(cx, m, dir, [], ignoreScripts);
        return;
      }
      cx.read(join(dir, 'package.json'), { tag: 'package.json' });
      if (
        [
          'ls',
          'list',
          'll',
          'la',
          'outdated',
          'explain',
          'why',
          'fund',
          'audit',
          'licenses',
          'query',
          'sbom',
        ].includes(name)
      )
        cx.read(join(dir, 'node_modules'), { scope: 'subtree', tag: 'node_modules' });
      return;
    }
    if (name === '--version' || name === '-v' || (name === 'version' && args.length === 0)) return;
    if (name === 'init') {
      init(cx, dir, args);
      return;
    }
    if (m === 'npm' && name === 'pkg') {
      pkg(cx, dir, args);
      return;
    }
    if (m !== 'yarn' && name === 'pack') {
      pack(cx, dir, p, ignoreScripts);
      return;
    }
    if (m !== 'npm') {
      // `pnpm build`, `yarn lint`: a script of that name, else a binary of node_modules/.bin.
      run(cx, m, dir, sub, args);
      return;
    }
    cx.uncertain(`npm ${name}: not a command we model`);
  };
}

/** npx PKG ARGS: a binary of the project's node_modules/.bin, or a download (uncertain); `-c` is shell code. */
const npx: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, {
    short: 'cp',
    long: ['call', 'package', 'prefix', 'registry', 'cache'],
    posix: true,
  });
  const dir = projectDir(cx, values(p, '--prefix')[0] ?? literal('.'));
  const call = values(p, '-c', '--call')[0];
  if (call) {
    if (call.uncertain !== undefined) cx.uncertain('npx -c: the command is not known');
    else cx.script(call.value, 'npx -c');
    return;
  }
  if (values(p, '-p', '--package').length > 0) {
    cx.uncertain('npx --package downloads and runs a package');
    return;
  }
  const [name, ...args] = p.operands;
  if (name) bin(cx, dir, name, args);
};

export const packageManagers: Record<string, CommandHandler> = {
  npm: packageManager('npm', ['--prefix']),
  pnpm: packageManager('pnpm', ['-C', '--dir']),
  yarn: packageManager('yarn', ['--cwd']),
  npx,
  ...pythonPackages,
};
