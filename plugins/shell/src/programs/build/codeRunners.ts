import type { CommandContext, CommandHandler } from '../../effects/extractTypes.js';

/**
 * Build tools, test runners, linters with code configuration and task runners: programs whose work is to
 * run the project's own code — build scripts (build.rs, build.gradle, CMakeLists.txt, setup.py), test files
 * and their fixtures (conftest.py, jest.config.js), plugins and configs written in a programming language
 * (eslint.config.js, vite.config.ts, .prettierrc.cjs), task definitions (Rakefile, noxfile.py). None of that
 * text is analysed, so a run is uncertain (invariant 6): with `sandbox: uncertain` it runs in the OS sandbox.
 *
 * Data, one record a program (from each tool's manual): which subcommands run project code (`'*'`: every
 * run of the program does), which only print (`--version`, `help`), and what the code is, for the reason.
 * A subcommand in neither list runs code too (fail closed): the lists name what is proven harmless.
 */
export interface CodeRunner {
  /** What runs, for the reason: "build.rs and procedural macros". */
  code: string;
  /** Subcommands or first arguments that run no project code (`--version`, `cargo fmt`); operands as usual. */
  safe?: readonly string[];
  /** The program has no subcommands: only a first argument in `safe` is harmless (a test runner). */
  noSubcommands?: true;
}

const VERSION = ['--version', '-V', '-v', 'version', '--help', '-h', 'help'];

// Sources: cargo(1) and the Cargo book "Build scripts"/"Procedural macros"; `go help generate|test|run`;
// Gradle/Maven/sbt user guides; cmake(1), meson(1), ninja(1); each runner's CLI docs.
export const CODE_RUNNERS: Readonly<Record<string, CodeRunner>> = {
  // `cargo check`/`clippy`/`doc` compile dependencies too: build scripts and proc macros run for them.
  cargo: {
    code: 'build scripts (build.rs) and procedural macros',
    safe: [
      ...VERSION,
      'fmt',
      'new',
      'init',
      'search',
      'tree',
      'metadata',
      'clean',
      'login',
      'logout',
      'owner',
      'yank',
      'locate-project',
      'pkgid',
      'verify-project',
      'vendor',
      'fetch',
      'generate-lockfile',
      'update',
      'report',
      'info',
      'add',
      'remove',
      'config',
    ],
  },
  // `go build` runs no project code (cgo flags are allowlisted by go); generate, test and run do.
  go: {
    code: 'project code (//go:generate commands, tests, main packages)',
    safe: [
      'version',
      'env',
      'help',
      'fmt',
      'vet',
      'list',
      'doc',
      'mod',
      'work',
      'clean',
      'build',
      'install',
      'bug',
      'telemetry',
    ],
  },
  gradle: {
    code: 'the build scripts (build.gradle, settings.gradle, buildSrc)',
    safe: ['--version', '-v', '--help', '-h'],
  },
  mvn: { code: 'the build plugins the POM configures', safe: ['--version', '-v', '--help', '-h'] },
  sbt: { code: 'the build definition (build.sbt, project/*.scala)', safe: ['--version', '--help', '-h'] },
  ant: { code: 'the build file (build.xml) and its tasks', safe: ['-version', '-help', '-h'] },
  lein: { code: 'the project definition (project.clj)', safe: ['version', 'help'] },
  bazel: { code: 'the BUILD and .bzl rules', safe: ['version', 'help', '--version'] },
  cmake: { code: 'the CMakeLists.txt scripts', safe: ['--version', '--help', '-h'] },
  meson: {
    code: 'the meson.build scripts and the commands they configure',
    safe: ['--version', '-v', 'help', '--help', '-h'],
  },
  ninja: { code: 'the commands of build.ninja', safe: ['--version', '-h'] },
  scons: { code: 'the SConstruct script', safe: ['--version', '-v', '--help', '-h'] },
  zig: {
    code: 'the build script (build.zig) or the program',
    safe: ['version', 'help', 'fmt', 'env', 'init', 'targets', 'zen'],
  },
  swift: {
    code: 'the package manifest (Package.swift) and its plugins',
    safe: ['--version', '--help', '-h'],
  },
  dotnet: {
    code: 'the project files and their MSBuild tasks',
    safe: [
      '--version',
      '--info',
      '--help',
      '-h',
      '--list-sdks',
      '--list-runtimes',
      'new',
      'nuget',
      'sln',
      'help',
    ],
  },
  pytest: {
    code: 'the test files and conftest.py',
    noSubcommands: true,
    safe: ['--version', '-V', '--help', '-h'],
  },
  'py.test': {
    code: 'the test files and conftest.py',
    noSubcommands: true,
    safe: ['--version', '-V', '--help', '-h'],
  },
  tox: { code: 'the environments tox.ini defines', noSubcommands: true, safe: ['--version', '--help', '-h'] },
  nox: { code: 'the sessions noxfile.py defines', noSubcommands: true, safe: ['--version', '--help', '-h'] },
  'pre-commit': {
    code: 'the hooks .pre-commit-config.yaml names',
    safe: ['--version', '-V', '--help', '-h', 'help'],
  },
  jest: { code: 'the test files and jest.config.*', noSubcommands: true, safe: VERSION },
  vitest: { code: 'the test files and vite/vitest config', noSubcommands: true, safe: VERSION },
  mocha: { code: 'the test files and .mocharc.*', noSubcommands: true, safe: VERSION },
  ava: { code: 'the test files', noSubcommands: true, safe: VERSION },
  karma: { code: 'the test files and karma.conf.js', noSubcommands: true, safe: VERSION },
  playwright: { code: 'the test files and playwright.config.*', noSubcommands: true, safe: VERSION },
  cypress: { code: 'the test files and cypress.config.*', noSubcommands: true, safe: VERSION },
  eslint: { code: 'eslint.config.js and its plugins', noSubcommands: true, safe: VERSION },
  prettier: {
    code: 'a JavaScript config (.prettierrc.js, prettier.config.*) and its plugins',
    noSubcommands: true,
    safe: VERSION,
  },
  stylelint: { code: 'stylelint.config.js and its plugins', noSubcommands: true, safe: VERSION },
  webpack: { code: 'webpack.config.js', noSubcommands: true, safe: VERSION },
  vite: { code: 'vite.config.* and its plugins', noSubcommands: true, safe: VERSION },
  rollup: { code: 'rollup.config.* and its plugins', noSubcommands: true, safe: VERSION },
  babel: { code: 'babel.config.js and its plugins', noSubcommands: true, safe: VERSION },
  tsup: { code: 'tsup.config.*', noSubcommands: true, safe: VERSION },
  next: { code: 'next.config.* and the app', noSubcommands: true, safe: VERSION },
  nuxt: { code: 'nuxt.config.* and the app', noSubcommands: true, safe: VERSION },
  astro: { code: 'astro.config.* and the app', noSubcommands: true, safe: VERSION },
  turbo: { code: 'the package scripts turbo.json runs', noSubcommands: true, safe: VERSION },
  nx: { code: 'the targets project.json runs', noSubcommands: true, safe: VERSION },
  lerna: { code: 'the package scripts it runs', noSubcommands: true, safe: VERSION },
  rake: { code: 'the Rakefile', noSubcommands: true, safe: ['--version', '-V', '--help', '-h'] },
  rspec: {
    code: 'the spec files and spec_helper.rb',
    noSubcommands: true,
    safe: ['--version', '-v', '--help', '-h'],
  },
  rails: { code: 'the application', noSubcommands: true, safe: ['--version', '-v', '--help', '-h'] },
  bundle: {
    code: 'the Gemfile and the gems it runs',
    safe: [...VERSION, 'list', 'info', 'show', 'outdated', 'check', 'config', 'platform'],
  },
  phpunit: {
    code: 'the test files and phpunit.xml bootstrap',
    noSubcommands: true,
    safe: ['--version', '--help', '-h'],
  },
  composer: {
    code: 'the scripts composer.json defines',
    safe: [
      '--version',
      '-V',
      '--help',
      '-h',
      'show',
      'info',
      'outdated',
      'validate',
      'licenses',
      'depends',
      'why',
      'why-not',
      'search',
      'config',
      'diagnose',
    ],
  },
  mix: { code: 'mix.exs and the project', safe: ['--version', '-v', 'help', '--help', '-h'] },
  rebar3: { code: 'rebar.config and its plugins', safe: ['version', 'help'] },
  cabal: {
    code: 'Setup.hs and the package',
    safe: ['--version', '--help', 'help', 'list', 'info', 'update', 'check', 'init', 'format', 'sdist'],
  },
  stack: {
    code: 'the package and its Setup.hs',
    safe: [
      '--version',
      '--help',
      'help',
      'ls',
      'list',
      'path',
      'new',
      'setup',
      'update',
      'query',
      'templates',
    ],
  },
  dune: {
    code: 'the dune rules',
    safe: ['--version', '--help', 'help', 'init', 'describe', 'format-dune-file', 'installed-libraries'],
  },
  hatch: { code: 'the environments and scripts pyproject.toml defines', safe: ['--version', '--help', '-h'] },
  pdm: {
    code: 'the scripts and build backend pyproject.toml names',
    safe: [
      '--version',
      '-V',
      '--help',
      '-h',
      'list',
      'show',
      'info',
      'config',
      'search',
      'outdated',
      'venv',
      'python',
      'cache',
      'self',
      'completion',
    ],
  },
  pipenv: {
    code: 'the scripts of the Pipfile and the packages it builds',
    safe: [
      '--version',
      '--help',
      '-h',
      '--venv',
      '--where',
      '--py',
      'graph',
      'check',
      'requirements',
      'verify',
      'scripts',
      '--envs',
    ],
  },
  gulp: { code: 'gulpfile.js', noSubcommands: true, safe: VERSION },
  grunt: { code: 'Gruntfile.js', noSubcommands: true, safe: VERSION },
};

/** The handler for one record: prints only, or runs project code (uncertain), with its operands as usual. */
function codeRunner(name: string, spec: CodeRunner): CommandHandler {
  return (cx: CommandContext) => {
    const args = cx.args;
    const first = args[0];
    // A test runner: only `--version`/`--help` alone is harmless. A tool with subcommands: the first word
    // that is not an option (or a version/help switch) decides.
    const word = spec.noSubcommands
      ? first
      : args.find(
          (f) => f.uncertain !== undefined || !f.value.startsWith('-') || spec.safe?.includes(f.value),
        );
    const harmless =
      word !== undefined &&
      word.uncertain === undefined &&
      spec.safe?.includes(word.value) === true &&
      (!spec.noSubcommands || args.length === 1);
    if (!harmless) {
      const what = spec.noSubcommands || word === undefined ? name : `${name} ${word.raw}`;
      cx.uncertain(`\`${what}\` runs ${spec.code}: code that is not analysed`, 'write', what);
    }
    cx.unknownOperands(args);
  };
}

export const codeRunners: Record<string, CommandHandler> = Object.fromEntries(
  Object.entries(CODE_RUNNERS).map(([name, spec]) => [name, codeRunner(name, spec)]),
);
