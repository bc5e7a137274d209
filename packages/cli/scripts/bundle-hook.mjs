// Builds dist/hook-bundle/hook.cjs — the code `toolgate hook` runs — as ONE file instead of the ~400 modules
// of the unbundled packages (measured: resolving, opening and compiling them was most of a hook call's time).
//
// Same source, same decisions: the entry is src/hook/hookMain.ts and everything it imports, compiled from the
// packages' own sources. Only *when* code loads changes. One file lets bin.js compile it with a V8 code cache
// (src/hook/runHookBundle.ts), and code a common call never needs is never evaluated:
//   - `import()` (audit-log, approvals, YAML/TOML for `plugins:`) becomes a lazily evaluated module, and
//   - three synchronous call sites get a facade that evaluates the real module on first call: folder-rules'
//     loadPolicy (zod, yaml, smol-toml: only when the on-disk policy cache misses), the shell plugin's
//     analyseCommand (its parser and program tables: only for shell calls) and fullParse (bash-parser,
//     babylon, magic-string: only for compound commands).
// It is one bundle, so core's classes and registries exist once.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const cli = fileURLToPath(new URL('..', import.meta.url));
const repo = join(cli, '..', '..');
const pkg = JSON.parse(readFileSync(join(cli, 'package.json'), 'utf8'));
const { DIALECTS } = await import(join(repo, 'plugins', 'folder-rules', 'dist', 'loadPolicy.js'));
const FOLDER_RULES_SRC = join(repo, 'plugins', 'folder-rules', 'src');

const LAZY = {
  loadPolicy: {
    file: join(FOLDER_RULES_SRC, 'loadPolicy.ts'),
    // The installed package itself (a dependency of this one), by require(esm): its compiled policy is plain
    // data, and its errors are reported by message.
    load: '@toolgate/folder-rules',
    facade: `export const DIALECTS = ${JSON.stringify(DIALECTS)};
export function loadPolicy(options) { return load().loadPolicy(options); }`,
  },
  // The shell analysis itself (parser, program tables, effects): a Read never runs it. Its own file
  // (shell.cjs, built below) with its own code cache, so a Read neither reads nor deserializes it; it uses
  // this bundle's core and minimatch (one ToolgateError class, one set of registries), handed over as
  // globalThis.__toolgateShared. bin/toolgate.cjs loads it with a code cache (__toolgateLoadBundle).
  analyseCommand: {
    file: join(repo, 'plugins', 'shell', 'src', 'tools', 'analyseCommand.ts'),
    resolveDir: join(repo, 'plugins', 'shell', 'src'),
    load: 'shell bundle',
    prelude: `import * as core from '@toolgate/core';
import * as minimatch from 'minimatch';
function loadShell() {
  globalThis.__toolgateShared = { '@toolgate/core': core, minimatch };
  const viaCache = globalThis.__toolgateLoadBundle;
  return viaCache ? viaCache('shell') : require(require('node:path').join(__dirname, 'shell.cjs'));
}`,
    facade: `export function analyseCommand(...args) { return load().analyseCommand(...args); }
export function patchAccesses(...args) { return load().patchAccesses(...args); }`,
  },
  fullParse: {
    file: join(repo, 'plugins', 'shell', 'src', 'parse', 'fullParse.ts'),
    load: join(repo, 'plugins', 'shell', 'src', 'parse', 'fullParse.ts'),
    facade: 'export function fullParse(...args) { return load().fullParse(...args); }',
  },
};
// Loaded from node_modules (dependencies of this package) on first use, never bundled: what a common hook
// call does not need stays out of the file every call reads and compiles.
const EXTERNAL = [
  '@toolgate/folder-rules',
  '@toolgate/audit-log',
  '@toolgate/approvals',
  // undici and nodemailer behind it were 60% of the file: only a call with webhooks configured loads them.
  '@toolgate/webhooks',
  'yaml',
  'smol-toml',
  'bash-parser',
];
// What the hook path uses of folder-rules: without the package index, its schema and lint modules (zod at
// module level) stay out of what runs.
const FOLDER_RULES_INDEX = `export { folderRules } from './folderRules.ts';
export { DIALECTS, loadPolicy } from './loadPolicy.js';`;

// What the sandbox compiler uses of folder-rules (the evaluator): bundled, not the whole package from
// node_modules (`toolgate run` and a sandboxed hook call).
const SANDBOX_SRC = join(repo, 'packages', 'sandbox', 'src');
const SANDBOX_FOLDER_RULES = `export { evaluatorFor } from './evaluator.ts';
export { guardPathsOf, RUNTIME_PREFIX } from './guardFiles.ts';`;

// Every function node:crypto exports (a namespace import, as nodemailer behind the webhooks package does,
// needs them all), each loading the module on its first call.
const CRYPTO_FUNCTIONS = Object.entries(await import('node:crypto'))
  .filter(([name, value]) => typeof value === 'function' && /^[a-z]/.test(name) && name !== 'default')
  .map(([name]) => name);

// Likewise for the shell plugin: its index also exports the program tables (for docs and tests), which would
// make every one of them initialise on every call.
const SHELL_SRC = join(repo, 'plugins', 'shell', 'src');
const SHELL_INDEX = "export { shell } from './shell.ts';";

/** `facades`: the LAZY entries this build replaces by their facade (the shell bundle is analyseCommand itself). */
const lazyPlugin = (facades) => ({
  name: 'toolgate-lazy',
  setup(b) {
    b.onResolve({ filter: /^@toolgate\/folder-rules$/ }, (args) => {
      if (args.namespace === 'tg-facade') return { path: args.path, external: true };
      if (args.importer.startsWith(SANDBOX_SRC)) return { path: 'evaluator', namespace: 'tg-evaluator' };
      return args.importer.startsWith(join(cli, 'src'))
        ? { path: 'folder-rules', namespace: 'tg-index' }
        : undefined;
    });
    b.onLoad({ filter: /.*/, namespace: 'tg-evaluator' }, () => ({
      contents: SANDBOX_FOLDER_RULES,
      loader: 'js',
      resolveDir: FOLDER_RULES_SRC,
    }));
    b.onLoad({ filter: /.*/, namespace: 'tg-index' }, () => ({
      contents: FOLDER_RULES_INDEX,
      loader: 'js',
      resolveDir: FOLDER_RULES_SRC,
    }));
    b.onResolve({ filter: /^@toolgate\/shell$/ }, (args) =>
      args.importer.startsWith(join(cli, 'src')) ? { path: 'shell', namespace: 'tg-shell-index' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'tg-shell-index' }, () => ({
      contents: SHELL_INDEX,
      loader: 'js',
      resolveDir: SHELL_SRC,
    }));
    // node:crypto (with the stream modules it loads) only when a function of it is called: folder-rules'
    // policy hash runs at compile time, i.e. on a policy-cache miss.
    // The facade's own require is the real module (external), not the facade again: that recursed.
    b.onResolve({ filter: /^(node:)?crypto$/ }, (args) =>
      args.namespace === 'tg-crypto'
        ? { path: 'node:crypto', external: true }
        : { path: 'crypto', namespace: 'tg-crypto' },
    );
    b.onLoad({ filter: /.*/, namespace: 'tg-crypto' }, () => ({
      contents: `let crypto;
const load = () => (crypto ??= require('node:crypto'));
${CRYPTO_FUNCTIONS.map((f) => `export function ${f}(...args) { return load().${f}(...args); }`).join('\n')}
// A default import (nodemailer, behind the webhooks package) gets the whole module, loaded on first use.
export default new Proxy({}, { get: (_, key) => load()[key], has: (_, key) => key in load() });`,
      loader: 'js',
      resolveDir: cli,
    }));
    // Importers of the heavy module get its facade; the facade `require`s the real file by absolute path
    // (not matched here), which esbuild wraps in an initializer that runs on the first call.
    b.onResolve({ filter: /^\.\/(loadPolicy|fullParse|analyseCommand)\.js$/ }, (args) => {
      const name = args.path.slice(2, -3);
      if (!facades.includes(name) || join(args.resolveDir, `${name}.ts`) !== LAZY[name].file)
        return undefined;
      return { path: name, namespace: 'tg-facade' };
    });
    b.onLoad({ filter: /.*/, namespace: 'tg-facade' }, (args) => ({
      // The set records which lazy parts this process loaded: bin/toolgate.cjs keeps a second code cache for
      // runs that analysed a shell command, so those functions come from a cache too.
      contents: `${LAZY[args.path].prelude ?? ''}
let loaded;
const load = () => (loaded ??= ((globalThis.__toolgateLazyLoaded ??= new Set()).add(${JSON.stringify(args.path)}), ${LAZY[args.path].prelude ? 'loadShell()' : `require(${JSON.stringify(LAZY[args.path].load)})`}));
${LAZY[args.path].facade}`,
      loader: 'js',
      resolveDir: LAZY[args.path].resolveDir ?? cli,
    }));
  },
});

// The shell bundle's view of the modules it shares with the bundle that loads it.
const SHARED = ['@toolgate/core', 'minimatch'];
const sharedPlugin = {
  name: 'toolgate-shared',
  setup(b) {
    b.onResolve({ filter: /^[@a-z]/ }, (args) =>
      SHARED.includes(args.path) ? { path: args.path, namespace: 'tg-shared' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'tg-shared' }, (args) => ({
      contents: `const shared = globalThis.__toolgateShared?.[${JSON.stringify(args.path)}];
if (shared === undefined) throw new Error('toolgate: shell.cjs is loaded by hook.cjs or run.cjs, not on its own');
module.exports = shared;`,
      loader: 'js',
    }));
  },
};

const outdir = join(cli, 'dist', 'hook-bundle');
// What every bundle is built with: CommonJS for Node 20 from the packages' own sources.
const COMMON = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  conditions: ['source'],
  mainFields: ['module', 'main'],
  define: { __TOOLGATE_VERSION__: JSON.stringify(pkg.version), 'import.meta.url': '__tgModuleUrl' },
  banner: { js: "var __tgModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
  external: EXTERNAL,
  // import() becomes require() (require(esm), Node >= 20.19): the bundle runs as a vm.Script, whose dynamic
  // import needs an experimental loader hook. A plugin with top-level await cannot be required: it fails to
  // load with its error, and the hook blocks.
  supported: { 'dynamic-import': false },
  metafile: true,
  logLevel: 'warning',
  // Comments out, third-party licence comments kept beside it: less to read and parse on every call.
  minifyWhitespace: true,
  legalComments: 'linked',
  charset: 'ascii',
};
rmSync(outdir, { recursive: true, force: true });
const result = await build({
  // run: `toolgate run` (src/run/runMain.ts), the same way and with the same lazy parts, in its own file.
  // exec: runs a plan the hook server made for `toolgate run` (src/run/execMain.ts): bubblewrap's start only.
  entryPoints: {
    hook: join(cli, 'src', 'hook', 'hookMain.ts'),
    run: join(cli, 'src', 'run', 'runMain.ts'),
    exec: join(cli, 'src', 'run', 'execMain.ts'),
  },
  outdir,
  outExtension: { '.js': '.cjs' },
  plugins: [lazyPlugin(['loadPolicy', 'fullParse', 'analyseCommand'])],
  ...COMMON,
});
// shell.cjs: the shell analysis, loaded by the analyseCommand facade above on the first shell command.
await build({
  stdin: {
    contents: "export { analyseCommand, patchAccesses } from './tools/analyseCommand.ts';",
    resolveDir: SHELL_SRC,
    sourcefile: 'shell-entry.js',
    loader: 'js',
  },
  outfile: join(outdir, 'shell.cjs'),
  plugins: [sharedPlugin, lazyPlugin(['fullParse'])],
  ...COMMON,
});
// runHookBundle.ts reads the file as latin1 (fastest decode): that is exact only for pure ASCII.
for (const name of ['hook.cjs', 'run.cjs', 'exec.cjs', 'shell.cjs']) {
  const bundled = readFileSync(join(outdir, name));
  const offset = bundled.findIndex((byte) => byte > 0x7f);
  if (offset >= 0)
    throw new Error(`dist/hook-bundle/${name} is not pure ASCII (byte ${offset}); see runHookBundle.ts`);
}
writeFileSync(join(outdir, 'package.json'), '{"type":"commonjs"}\n');
if (process.argv.includes('--report')) {
  // Per bundle: the inputs that make most of it.
  for (const [file, out] of Object.entries(result.metafile.outputs)) {
    if (!out.entryPoint) continue;
    console.log(file);
    const sizes = {};
    for (const [input, { bytesInOutput }] of Object.entries(out.inputs)) {
      const m = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(input);
      const key = m ? m[1] : input.replace(/^.*?(packages|plugins)\/([^/]+)\/.*/, '$2');
      sizes[key] = (sizes[key] ?? 0) + bytesInOutput;
    }
    console.log(
      Object.entries(sizes)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 12)
        .map(([k, v]) => `${k} ${(v / 1024).toFixed(0)}K`)
        .join(', '),
    );
  }
}
