import { readdirSync } from 'node:fs';
import type { CommandContext, CommandHandler } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { has, parseArgs, values } from '../argv.js';
import { inDir } from '../packages/packageScripts.js';
import { emitOptions, literal, unknownOptions } from '../spec.js';
import { BUILTIN, expandMake, type Makefile, parseMakefile } from './makefile.js';

/** Most rules one `make` call walks before the rest is uncertain. */
const MAX_RULES = 200;

const SPEC = {
  short: 'CfIjloWEO',
  shortFlags: 'bBdeikLnpqrRsStvwh',
  optionalShort: '',
  long: [
    'directory',
    'file',
    'makefile',
    'include-dir',
    'jobs',
    'load-average',
    'old-file',
    'assume-old',
    'what-if',
    'new-file',
    'assume-new',
    'eval',
    'output-sync',
    'debug',
    'shuffle',
    'jobserver-style',
  ],
  flags: [
    'always-make',
    'environment-overrides',
    'ignore-errors',
    'keep-going',
    'check-symlink-times',
    'just-print',
    'dry-run',
    'recon',
    'print-data-base',
    'question',
    'no-builtin-rules',
    'no-builtin-variables',
    'silent',
    'quiet',
    'no-silent',
    'no-keep-going',
    'stop',
    'touch',
    'trace',
    'version',
    'print-directory',
    'no-print-directory',
    'warn-undefined-variables',
    'help',
    'load-average',
  ],
};

function compose(dirs: readonly Field[]): Field {
  let dir: Field = literal('.');
  for (const c of dirs)
    dir = c.value.startsWith('/') || c.tilde ? c : { ...c, value: `${dir.value}/${c.value}` };
  return dir;
}

function within(dir: Field, name: string): Field {
  return dir.value === '.' ? literal(name) : { ...dir, value: `${dir.value}/${name}`, glob: -1 };
}

/** The makefile make reads: `-f` files, else GNUmakefile, makefile or Makefile in the directory. */
function makefiles(cx: CommandContext, dir: Field, given: readonly Field[]): Field[] | null {
  if (given.length > 0)
    return given.map((f) => (f.value.startsWith('/') || f.tilde ? f : within(dir, f.value)));
  for (const n of ['GNUmakefile', 'makefile', 'Makefile']) {
    const f = within(dir, n);
    if (cx.exists(f)) return [f];
  }
  return null;
}

/**
 * make [-C DIR] [-f FILE] [VAR=value…] [TARGET…]: reads the makefile and, where the rules are plain,
 * analyses the recipes of the targets and of everything they depend on as shell, after make's variable
 * expansion (make runs each recipe line with `/bin/sh -c`). We judge every recipe that could run, not only
 * the out-of-date ones. What we do not follow (see `parseMakefile`) is uncertain.
 */
export const make: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, SPEC);
  emitOptions(cx, p, { '-I': 'read', '--include-dir': 'read' });
  unknownOptions(cx, p);
  if (values(p, '-E', '--eval').length > 0) cx.uncertain('make --eval adds rules we do not analyse');
  const dir = compose(values(p, '-C', '--directory'));
  const given = values(p, '-f', '--file', '--makefile');
  if (given.some((f) => f.value === '-')) {
    cx.uncertain('make -f - reads the makefile from stdin');
    return;
  }
  const assigns = new Map<string, string>();
  const targets: string[] = [];
  for (const f of p.operands) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)\s*:?=(.*)$/s.exec(f.value);
    if (f.uncertain !== undefined) cx.uncertain(`make: an argument is not known (${f.raw})`);
    else if (m) assigns.set(m[1]!, m[2]!);
    else targets.push(f.value);
  }
  const files = makefiles(cx, dir, given);
  if (files === null) return; // "No targets specified and no makefile found": nothing runs
  // make reads the names in its directory once (its directory cache for implicit-rule and vpath searches):
  // strace shows getdents64 of the cwd even for `make -n`. A list, never the files' contents.
  cx.emit(dir, 'list', { tag: 'make' });
  const text: string[] = [];
  for (const f of files) {
    cx.read(f, { tag: 'makefile' });
    const c = cx.readContent(f);
    if ('uncertain' in c) {
      cx.uncertain(`make: ${c.uncertain}`);
      return;
    }
    text.push(c.text);
  }
  const mk = parseMakefile(text.join('\n'));
  if ('uncertain' in mk) {
    cx.uncertain(`make: ${mk.uncertain}`);
    return;
  }
  environmentInputs(cx, mk, has(p, '-e', '--environment-overrides'));
  for (const [k, v] of assigns) {
    if (/^(SHELL|MAKEFLAGS|MAKE|MAKEFILES)$/.test(k)) cx.uncertain(`make ${k}=… changes how recipes run`);
    mk.vars.set(k, v);
  }
  const dryRun = has(p, '-n', '--just-print', '--dry-run', '--recon', '-q', '--question');
  const wanted = targets.length > 0 ? targets : mk.defaultTarget ? [mk.defaultTarget] : [];
  const makeflags = cx.variable('MAKEFLAGS');
  const parallel =
    has(p, '-j', '--jobs') ||
    makeflags === null ||
    /(^|\s)-?[a-zA-Z]*j|--jobs/.test(makeflags ?? '') ||
    mk.vars.has('MAKEFLAGS');
  runTargets(cx, mk, dir, wanted, dryRun, parallel);
};

/**
 * What make takes from its environment (GNU make manual, "Variables from the Environment", "The Variable
 * MAKEFILES", "Communicating Options to a Sub-make"): every variable becomes a make variable — one the
 * makefile does not set replaces a built-in default (`CC=./evil make` runs ./evil through `$(CC)`), so such
 * a variable is left to the shell's view of the environment; `MAKEFILES` names makefiles read first;
 * `MAKEFLAGS`/`GNUMAKEFLAGS` may carry variable definitions and options; `-e` lets the environment override
 * the makefile itself.
 */
function environmentInputs(cx: CommandContext, mk: Makefile, envOverrides: boolean): void {
  for (const [name, fallback] of BUILTIN) {
    if (name === 'MAKE' || name === 'SHELL') continue; // make sets these itself
    if (mk.vars.get(name) === fallback && cx.variable(name) !== undefined) mk.vars.delete(name);
  }
  for (const name of ['MAKEFILES', 'GNUMAKEFLAGS'])
    if (cx.variable(name) !== undefined)
      cx.uncertain(`make reads ${name} from the environment`, 'write', name);
  const flags = cx.variable('MAKEFLAGS');
  // Plain flags are harmless (`-j4`, `s`, `--no-print-directory`); a definition or an option naming files is not.
  if (
    flags === null ||
    (flags !== undefined &&
      /=|(^|\s)-?[a-zA-Z]*[fCIEoW]|--(eval|file|makefile|directory|include)/.test(flags))
  )
    cx.uncertain('make reads definitions or options from MAKEFLAGS in the environment', 'write', 'MAKEFLAGS');
  if (envOverrides) cx.uncertain('make -e lets the environment override the makefile', 'write', '-e');
}

/**
 * GNU make's special targets (make(1) "Special Built-in Target Names") that are not suffix rules and bring no
 * recipe for other targets (`.DEFAULT` and `.SUFFIXES` do: not listed).
 */
const SPECIAL_TARGETS = new Set([
  '.PHONY',
  '.PRECIOUS',
  '.INTERMEDIATE',
  '.NOTINTERMEDIATE',
  '.SECONDARY',
  '.SECONDEXPANSION',
  '.DELETE_ON_ERROR',
  '.IGNORE',
  '.LOW_RESOLUTION_TIME',
  '.SILENT',
  '.EXPORT_ALL_VARIABLES',
  '.NOTPARALLEL',
  '.ONESHELL',
  '.POSIX',
  '.DEFAULT_GOAL',
]);

/**
 * Whether a built-in or pattern rule could make `t`: the Makefile has pattern, suffix or `.DEFAULT` rules, or
 * a file beside where `t` would be shares its stem (`t.c`, `t.sh`, `t,v`, `s.t`, RCS/, SCCS/ — the sources
 * GNU make's built-in rules look for). `true` whenever the directory cannot be read.
 */
function implicitMayApply(cx: CommandContext, mk: Makefile, dir: Field, t: string): boolean {
  for (const name of mk.rules.keys())
    if (name.includes('%') || (name.startsWith('.') && !name.includes('/') && !SPECIAL_TARGETS.has(name)))
      return true;
  const slash = t.lastIndexOf('/');
  const stem = t.slice(slash + 1);
  if (stem === '' || /[%*?[]/.test(t)) return true;
  const real = cx.resolveDir(slash === -1 ? dir : within(dir, t.slice(0, slash) || '/'));
  if (real === null) return true;
  let names: string[];
  try {
    names = readdirSync(real);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ENOENT';
  }
  // `x.o` is made from `x.c`, `x` from `x.o` or `x.c`: a file named by the stem without its suffix, or by the
  // whole name with one more.
  const bare = stem.includes('.') ? stem.slice(0, stem.lastIndexOf('.')) : stem;
  return names.some(
    (n) =>
      n.startsWith(`${stem}.`) ||
      (bare !== '' && n.startsWith(`${bare}.`) && n !== stem) ||
      n === `${stem},v` ||
      n === `s.${stem}` ||
      n === 'RCS' ||
      n === 'SCCS',
  );
}

function runTargets(
  cx: CommandContext,
  mk: Makefile,
  dir: Field,
  wanted: readonly string[],
  dryRun: boolean,
  parallel: boolean,
): void {
  // make builds each goal in the order given, a target's prerequisites before its own recipe (make(1));
  // with -j they may run at the same time: each recipe is then analysed as a background job.
  const seen = new Set<string>();
  const visit = (t: string, depth: number): boolean => {
    if (seen.has(t)) return true;
    seen.add(t);
    if (seen.size > MAX_RULES || depth > MAX_RULES) {
      cx.uncertain(`make: more than ${MAX_RULES} rules`);
      return false;
    }
    const rule = mk.rules.get(t);
    if (rule === undefined) {
      // No explicit rule: an existing file needs nothing; otherwise a built-in implicit rule may run — or,
      // with no file it could be made from, make stops ("No rule to make target") and runs nothing more.
      if (!cx.exists(within(dir, t)) && implicitMayApply(cx, mk, dir, t))
        cx.uncertain(`make: no explicit rule for ${t} (implicit rules run programs we do not follow)`);
      return true;
    }
    const prereqs = rule.prereqs;
    for (const pre of prereqs) if (!visit(pre, depth + 1)) return false;
    const unique = [...new Set(prereqs)];
    const auto = new Map([
      ['@', t],
      ['<', prereqs[0] ?? ''],
      ['^', unique.join(' ')],
      ['+', prereqs.join(' ')],
      ['?', unique.join(' ')],
      ['*', ''],
      ['|', ''],
    ]);
    for (const line of rule.recipe) {
      const stripped = line.replace(/^[ \t]*[@+-]*/, '');
      const always = /^[ \t]*[@-]*\+/.test(line) || /\$[({]MAKE[)}]/.test(line);
      if (dryRun && !always) continue;
      const sh = expandMake(stripped, mk.vars, auto);
      if (sh === null) {
        cx.uncertain(`make ${t}: a recipe line uses make functions or substitutions we do not expand`);
        continue;
      }
      if (sh.trim() !== '') cx.script(parallel ? `(${inDir(dir, sh)}\n) &` : inDir(dir, sh), `make ${t}`);
    }
    return true;
  };
  for (const t of wanted) if (!visit(t, 0)) return;
}
