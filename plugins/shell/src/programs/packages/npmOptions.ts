// The subcommand names and option tables of npm, pnpm and yarn (their documentation, checked under strace
// in a scratch project): install-like commands write `node_modules` and the lockfile (and package.json when
// adding or removing); scripts run with `sh -c` in the package directory.

export type Manager = 'npm' | 'pnpm' | 'yarn';

export const INSTALL = new Set([
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
export const READ = new Set([
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
export const INSTALL_SCRIPTS = [
  'preinstall',
  'install',
  'postinstall',
  'prepublish',
  'preprepare',
  'prepare',
  'postprepare',
];
export const RUN = new Set(['run', 'run-script', 'rum', 'urn']);
export const SHORT_RUN: Readonly<Record<string, string>> = {
  test: 'test',
  t: 'test',
  tst: 'test',
  start: 'start',
  stop: 'stop',
  restart: 'restart',
};
/** npm config keys whose value is a program npm runs (npm-config(7)): in a project's .npmrc that is code. */
export const NPMRC_CODE =
  /^\s*(script-shell|node-options|shell|git|editor|browser|viewer|onload-script|init-module)\s*=/m;

/** Options that take a value, for all three (unknown ones are left as they are: npm accepts any config key). */
export const SPEC = {
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
export const PNPM_SPEC = { ...SPEC, short: 'CcF', flags: [...SPEC.flags, 'workspace-root'] };

export const CLEAN_INSTALL = new Set(['ci', 'clean-install', 'ic', 'install-clean', 'isntall-clean']);
export const PLAIN_INSTALL = new Set([
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

/** Subcommands the handler below models as themselves; any other pnpm/yarn subcommand names a script. */
export const NAMED = new Set([
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
export const PNPM_COMMANDS = new Set(
  'approve-builds bin cat-file cat-index config create dedupe deploy doctor env fetch find-hash ignored-builds import install-test licenses outdated patch patch-commit patch-remove prune publish rebuild rb recursive root self-update server setup store unlink why'.split(
    ' ',
  ),
);

export function namedCommand(name: string): boolean {
  return (
    INSTALL.has(name) || RUN.has(name) || SHORT_RUN[name] !== undefined || READ.has(name) || NAMED.has(name)
  );
}
