import type { CommandContext, CommandHandler } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { literal } from '../spec.js';
import { runsCode } from './runsCode.js';

// Node 20 `node --help`, by what the option does. Options not listed are uncertain.
const HARMLESS_FLAGS = new Set(
  `abort-on-uncaught-exception enable-source-maps expose-gc no-deprecation no-warnings pending-deprecation
   preserve-symlinks preserve-symlinks-main throw-deprecation trace-deprecation trace-warnings trace-exit
   trace-uncaught trace-sigint trace-sync-io trace-promises zero-fill-buffers jitless frozen-intrinsics
   disallow-code-generation-from-strings experimental-vm-modules experimental-import-meta-resolve
   experimental-permission allow-child-process allow-worker allow-wasi allow-addons no-addons
   experimental-test-coverage test-only test-force-exit watch watch-preserve-output use-openssl-ca
   use-bundled-ca insecure-http-parser force-fips enable-fips openssl-legacy-provider openssl-shared-config
   experimental-websocket experimental-eventsource no-experimental-fetch no-experimental-global-webcrypto
   no-experimental-detect-module no-experimental-require-module experimental-require-module
   experimental-detect-module no-extra-info-on-fatal-exception no-global-search-paths tls-max-v1.2
   tls-max-v1.3 tls-min-v1.0 tls-min-v1.1 tls-min-v1.2 tls-min-v1.3 experimental-wasm-modules
   experimental-network-imports report-on-fatalerror report-uncaught-exception report-compact
   report-on-signal report-exclude-network experimental-print-required-tla`.split(/\s+/),
);
const HARMLESS_VALUES = new Set(
  `conditions disable-proto disable-warning dns-result-order input-type experimental-default-type
   max-http-header-size stack-size stack-trace-limit max-old-space-size max-semi-space-size title
   unhandled-rejections test-concurrency test-name-pattern test-shard test-timeout tls-cipher-list
   secure-heap secure-heap-min v8-pool-size use-largepages heapsnapshot-signal report-signal
   heapsnapshot-near-heap-limit trace-event-categories watch-path test-reporter allow-fs-read
   allow-fs-write`.split(/\s+/),
);
// Options whose value is a file or directory.
const PATH_VALUES: Readonly<Record<string, 'read' | 'write'>> = {
  'env-file': 'read',
  'env-file-if-exists': 'read',
  'experimental-policy': 'read',
  'openssl-config': 'read',
  'icu-data-dir': 'read',
  'redirect-warnings': 'write',
  'tls-keylog': 'write',
  'cpu-prof-dir': 'write',
  'heap-prof-dir': 'write',
  'diagnostic-dir': 'write',
  'report-dir': 'write',
  'report-directory': 'write',
  'test-reporter-destination': 'write',
};
const SHORT: Record<string, string> = {
  e: 'eval',
  p: 'print',
  r: 'require',
  c: 'check',
  C: 'conditions',
  i: 'interactive',
  h: 'help',
  v: 'version',
};

/** `--require`/`--import`/`--loader` module: a path is read, a `data:` URL is code, a package name comes from node_modules. */
function preload(cx: CommandContext, f: Field): void {
  if (f.uncertain !== undefined || /^(data|https?):/i.test(f.value))
    cx.uncertain(`${cx.name} preloads code that is not analysed`, 'write', f.raw);
  else if (f.value.startsWith('file:'))
    runsCode(
      cx,
      { ...f, value: decodeURIComponent(f.value.replace(/^file:(\/\/)?/, '')) },
      `${cx.name} --require`,
    );
  // A package name is code from node_modules, which the agent can write as well.
  else runsCode(cx, /^[./~]/.test(f.value) ? f : undefined, `${cx.name} --require`);
}

/**
 * node/nodejs: `-e`/`-p`/`--eval`/`--print` code, `-i`, `--inspect*` (a debugger anyone on the host can
 * drive) and programs from stdin are uncertain; `-r`/`--import`/`--loader` modules are read (a `data:` URL
 * is inline code); `--env-file` and diagnostics options name files; `--test` runs test files (the named
 * ones, or the test-named files under the cwd, which we do not list); `node FILE` reads FILE and passes its operands on.
 */
export interface JsRunnerExtra {
  /** Further flags of a node-compatible runner (tsx, ts-node) that touch nothing. */
  flags?: readonly string[];
  /** Further options with a value that is not a path. */
  values?: readonly string[];
  /** Further short aliases (`-P` → `project`). */
  short?: Readonly<Record<string, string>>;
  /** A leading subcommand to skip (`tsx watch FILE`). */
  subcommands?: readonly string[];
}

/** A handler for node or a runner that takes node's options plus its own (see JsRunnerExtra). */
export function jsRunner(extra: JsRunnerExtra = {}): CommandHandler {
  const short = { ...SHORT, ...extra.short };
  return (cx) => nodeArgs(cx, extra, short);
}

function nodeArgs(cx: CommandContext, extra: JsRunnerExtra, short: Readonly<Record<string, string>>): void {
  const first = cx.args[0];
  const args = first && extra.subcommands?.includes(first.value) ? cx.args.slice(1) : cx.args;
  let i = 0;
  let test = false;
  for (; i < args.length; i++) {
    const f = args[i]!;
    const v = f.value;
    if (f.uncertain !== undefined || !v.startsWith('-') || v === '-') break;
    if (v === '--') {
      i++;
      break;
    }
    const m = /^--?([^=]+)(?:=(.*))?$/s.exec(v)!;
    const name = v.startsWith('--') ? m[1]! : (short[m[1]!] ?? m[1]!);
    const inline = m[2] !== undefined ? { ...f, value: m[2], glob: -1, tilde: false } : undefined;
    const next = (): Field | undefined => inline ?? args[++i];
    if (name === 'version' || name === 'help' || name === 'v8-options') return;
    if (name === 'eval' || name === 'print' || name === 'interactive') {
      cx.uncertain(`${cx.name} --${name} runs code that is not analysed`, 'write', v);
      return;
    }
    if (/^inspect/.test(name) || name === 'debug-port') {
      cx.uncertain(`${cx.name} --${name} opens a debugger that runs any code`, 'write', v);
      return;
    }
    if (name === 'require' || name === 'import' || name === 'loader' || name === 'experimental-loader') {
      const mod = next();
      if (mod) preload(cx, mod);
      continue;
    }
    if (name === 'test') {
      test = true;
      continue;
    }
    if (name === 'check' || HARMLESS_FLAGS.has(name) || extra.flags?.includes(name)) continue;
    if (HARMLESS_VALUES.has(name) || extra.values?.includes(name)) {
      if (!inline && !['allow-fs-read', 'allow-fs-write'].includes(name)) i++;
      continue;
    }
    const role = PATH_VALUES[name];
    if (role) {
      const value = next();
      if (value) cx.emit(value, role, { tag: name });
      continue;
    }
    if (name === 'cpu-prof' || name === 'heap-prof' || name === 'prof') {
      // Profiles land in the cwd (isolate-*.log, *.cpuprofile) unless a -dir option says otherwise.
      cx.write(literal('./*'), { tag: name });
      continue;
    }
    cx.uncertain(`${cx.name}: option ${v} is not in its table`, 'write', v);
    return;
  }
  const operands = args.slice(i);
  if (test) {
    // `node --test` with no files runs the test files it finds under the cwd: the workspace's own code, as
    // `python -m pytest` — not a read of every file beneath (it opens only test-named files).
    for (const f of operands) cx.read(f, { tag: 'test' });
    runsCode(cx, undefined, `${cx.name} --test`);
    return;
  }
  const [file, ...rest] = operands;
  if (!file || file.value === '-') {
    cx.uncertain(`${cx.name} reads its program from stdin`);
    return;
  }
  runsCode(cx, file, `${cx.name} ${file.raw}`);
  cx.unknownOperands(rest);
}

const node = jsRunner();

// tsx(1): node's options plus its own; `tsx watch FILE` reruns FILE on changes.
const tsx = jsRunner({
  flags: ['no-cache', 'clear-screen'],
  values: ['tsconfig', 'ignore', 'include'],
  subcommands: ['watch'],
});
// ts-node --help (v10).
const tsNode = jsRunner({
  flags: [
    'transpile-only',
    'type-check',
    'esm',
    'swc',
    'files',
    'skip-project',
    'skip-ignore',
    'pretty',
    'log-error',
    'prefer-ts-exts',
    'script-mode',
    'cwd-mode',
    'emit',
  ],
  values: [
    'project',
    'compiler-options',
    'ignore',
    'ignore-diagnostics',
    'compiler',
    'transpiler',
    'scope-dir',
    'project-search-dir',
  ],
  short: {
    P: 'project',
    T: 'transpile-only',
    O: 'compiler-options',
    I: 'ignore',
    D: 'ignore-diagnostics',
    C: 'compiler',
    H: 'cwd-mode',
    s: 'script-mode',
  },
});

export const nodeFamily: Record<string, CommandHandler> = { node, nodejs: node, tsx, 'ts-node': tsNode };
