import type { CommandHandler } from '../../effects/extractTypes.js';
import { fieldAsValue } from '../../state/expandWord.js';
import { parseArgs } from '../argv.js';
import { literal, noPaths, simple } from '../spec.js';
import { testBuiltin } from './testBuiltin.js';

/**
 * cd/pushd change the cwd for the rest of the list; `cd -`, `popd` or an unknown target make it unknown.
 * `-P` resolves the target as the kernel does (and `$PWD` becomes the real path), `-L` logically; the last
 * one given wins (bash's and dash's getopt loops). With no operand cd goes to `$HOME` as it is for this
 * command (`HOME=/etc cd`); an unset or empty HOME leaves the cwd where it is (bash: "HOME not set").
 */
const cd: CommandHandler = (cx) => {
  let physical: boolean | undefined;
  let k = 0;
  for (; k < cx.args.length; k++) {
    const f = cx.args[k]!;
    if (f.uncertain !== undefined) break;
    if (f.value === '--') {
      k++;
      break;
    }
    if (cx.name === 'pushd' || !/^-[LPe@]+$/.test(f.value)) break;
    for (const c of f.value.slice(1)) {
      if (c === 'P') physical = true;
      else if (c === 'L') physical = false;
    }
  }
  const target = cx.args[k];
  // cd touches nothing itself (chdir(2) needs search permission, reads no names or contents): it moves the
  // base of later relative paths, and what follows is judged there. So `cd /` or `cd ..` are certain and
  // allowed; `cd ~/.ssh && cat id_rsa` is judged by the read of ~/.ssh/id_rsa (issue 12, item 4).
  if (!target) {
    const home = cx.variable('HOME');
    if (home === '' || home === undefined) return;
    cx.chdir({ ...literal('~'), tilde: true }, true, physical);
    return;
  }
  if (target.value === '-' || /^[+-]\d+$/.test(target.value)) {
    cx.chdir(null);
    return;
  }
  cx.chdir(target, true, physical);
};

const popd: CommandHandler = (cx) => cx.chdir(null);

/**
 * export/declare/local/readonly/typeset NAME=VALUE…: tracked like assignments. Inside a function `local`,
 * `declare` and `typeset` (without -g) are local: the old value returns when it does.
 */
const declare: CommandHandler = (cx) => {
  const flags = cx.args.filter((f) => /^[-+][a-zA-Z]+$/.test(f.value)).map((f) => f.value);
  // `export -n` only removes the export attribute; elsewhere -n makes a nameref.
  if (cx.name !== 'export' && flags.some((f) => f.startsWith('-') && f.includes('n'))) {
    cx.uncertain(`${cx.name} -n makes a name refer to another variable`);
  }
  const local =
    cx.name === 'local' ||
    ((cx.name === 'declare' || cx.name === 'typeset') && !flags.some((f) => f.includes('g')));
  if (flags.some((f) => f.startsWith('-') && f.includes('f'))) {
    // `export -f NAME` hands the function to child shells; `declare -f` only prints.
    if (cx.name === 'export') for (const f of cx.args) if (NAME.test(f.value)) cx.exportFunction(f.value);
    return;
  }
  // `export NAME`, `declare -x NAME` export it to child processes; `export -n`, `declare +x` stop that.
  const exporting =
    cx.name === 'export'
      ? !flags.some((f) => f.startsWith('-') && f.includes('n'))
      : flags.some((f) => f.startsWith('-') && f.includes('x'))
        ? true
        : flags.some((f) => f.startsWith('+') && f.includes('x'))
          ? false
          : undefined;
  for (const f of cx.args) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)(\+?)=/.exec(f.value);
    const v = m && !m[2] ? fieldAsValue(f, m[0].length) : null;
    // `declare`/`typeset` are not in POSIX sh: in code sh may run (`sh -c`) the line may fail and the variable
    // keep its value (oracle, dash: `declare HOME=/x; cat ~/passwd` reads the old HOME), so both are possible.
    const maybe = cx.name === 'declare' || cx.name === 'typeset';
    if (m) cx.setVar(m[1]!, v === null ? null : [v], { local, maybe });
    // A bare name only declares: inside a function a new, unset local; elsewhere the value stays.
    else if (NAME.test(f.value) && cx.name !== 'export' && cx.name !== 'readonly')
      cx.setVar(f.value, 'declared', { local });
    else if (f.uncertain !== undefined)
      cx.uncertain(`${cx.name} of a name that is not known: ${f.uncertain}`);
    const name = m?.[1] ?? (NAME.test(f.value) ? f.value : undefined);
    if (name !== undefined && exporting !== undefined) cx.setExported(name, exporting);
  }
};

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** read/mapfile/getopts/printf -v set variables to values we cannot know. */
const readVars: CommandHandler = (cx) => {
  // Options taking a value, and flags, as `help read` / `help mapfile` list them.
  const mapfile = cx.name === 'mapfile' || cx.name === 'readarray';
  const p = parseArgs(
    cx.args,
    mapfile ? { short: 'dnOsuCc', shortFlags: 't' } : { short: 'adinNptu', shortFlags: 'ers' },
  );
  for (const f of p.operands) if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(f.value)) cx.setVar(f.value, null);
  for (const o of p.opts) if ((o.name === '-a' || o.name === '-v') && o.value) cx.setVar(o.value.value, null);
  if (cx.name === 'mapfile' || cx.name === 'readarray') cx.setVar('MAPFILE', null);
  cx.setVar('REPLY', null);
};

/** unset [-v] NAME… removes variables; `unset -f NAME` functions, so NAME is the program again. */
const unset: CommandHandler = (cx) => {
  const fn = cx.args.some((f) => /^-[a-z]*f/.test(f.value));
  for (const f of cx.args) {
    if (!NAME.test(f.value)) continue;
    if (fn) cx.dropFunction(f.value);
    else {
      // Without -v, bash unsets a function of that name when no variable has it: both, to be safe.
      cx.setVar(f.value, 'unset');
      if (!cx.args.some((a) => /^-[a-z]*v/.test(a.value))) cx.dropFunction(f.value);
    }
  }
};

/** getopts OPTSTRING NAME [ARGS…]: NAME and OPTARG get values from the arguments. */
const getopts: CommandHandler = (cx) => {
  const name = cx.args[1];
  if (name && NAME.test(name.value)) cx.setVar(name.value, null);
  else if (name) cx.uncertain('getopts sets a variable whose name is not known');
  cx.setVar('OPTARG', null);
  cx.setVar('OPTIND', null);
};

/** trap 'CMD' SIGNAL…: the command runs later in this shell; analyse it. */
const trap: CommandHandler = (cx) => {
  // `trap -- ACTION SIG`: `--` ends the options (`trap -p`, `-l` only print); the action follows.
  const k = cx.args[0]?.value === '--' ? 1 : 0;
  const action = cx.args[k];
  if (!action || (k === 0 && action.value.startsWith('-'))) return;
  // A lone signal number as the first operand resets that signal (POSIX): no action.
  if (cx.args.length === 1 + k && /^\d+$/.test(action.value)) return;
  if (action.uncertain !== undefined) cx.uncertain(`trap action is not known: ${action.uncertain}`);
  // It runs later in this same shell process: it sees the functions defined by then.
  else cx.script(action.value, 'trap', { newProcess: false });
};

/**
 * `alias NAME=TEXT`: defines nothing that runs now; a later command named NAME in this line may run TEXT
 * instead (where aliases are expanded), so such a command is uncertain. A name that is not known could be any.
 */
const alias: CommandHandler = (cx) => {
  for (const f of cx.args) {
    if (f.uncertain !== undefined) cx.uncertain(`alias: ${f.raw} is not known`);
    else if (f.value.includes('=')) cx.defineAlias(f.value.slice(0, f.value.indexOf('=')));
  }
};

const printf: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, { short: 'v', posix: true });
  for (const o of p.opts) if (o.name === '-v' && o.value) cx.setVar(o.value.value, null);
};

/**
 * `test` run as a program (`env test -f x`, `find -exec test`), not as the shell's builtin (testBuiltin.ts):
 * an operand that looks like a path, or exists, is read.
 */
const testProgram: CommandHandler = (cx) => {
  for (const f of cx.args) {
    if (f.value.startsWith('-') && f.uncertain === undefined) continue;
    if (
      f.uncertain !== undefined ||
      f.value.includes('/') ||
      f.value.startsWith('.') ||
      f.tilde ||
      cx.exists(f)
    ) {
      cx.read(f);
    }
  }
};

export const builtins: Record<string, CommandHandler> = {
  cd,
  pushd: cd,
  popd,
  chdir: cd,
  export: declare,
  declare,
  typeset: declare,
  local: declare,
  readonly: declare,
  read: readVars,
  mapfile: readVars,
  readarray: readVars,
  getopts,
  unset,
  trap,
  alias,
  printf,
  date: simple({
    short: 'dfrI',
    long: ['date', 'file', 'reference', 'iso-8601', 'rfc-3339'],
    operands: 'none',
    pathOpts: { '-f': 'read', '--file': 'read', '-r': 'read', '--reference': 'read' },
  }),
  history: (cx) => {
    const p = parseArgs(cx.args, { short: 'd' });
    const write = p.opts.some((o) => /^-[awrn]$/.test(o.name));
    for (const f of p.operands) if (write) cx.write(f);
    if (write && p.operands.length === 0) cx.uncertain('history writes the history file');
  },
  fc: (cx) => cx.uncertain('fc re-runs commands from history'),
  shopt: (cx) => {
    // dotglob / nocaseglob change what later globs match (a `*` then reaches `.env`); an option we cannot
    // read may be either.
    if (cx.args.some((f) => f.value === '-s')) {
      const unknown = cx.args.some((f) => f.uncertain !== undefined || f.glob >= 0);
      const names = cx.args.map((f) => f.value);
      cx.globOptions({
        dot: unknown || names.includes('dotglob'),
        nocase: unknown || names.includes('nocaseglob'),
      });
    }
    // cdable_vars: `cd NAME` goes to $NAME when ./NAME is not a directory — where is not known here.
    // expand_aliases alone changes nothing: alias definitions are uncertain already.
    if (
      cx.args.some((f) => f.value === '-s') &&
      cx.args.some((f) => f.value === 'cdable_vars' || f.uncertain)
    )
      cx.uncertain("shopt -s cdable_vars lets cd go to a variable's value");
  },
  set: (cx) => {
    // `set -k`: NAME=VALUE anywhere in a command's arguments goes to its environment (HOME=… for a child).
    if (cx.args.some((f) => /^-[a-zA-Z]*k/.test(f.value) || f.value === 'keyword'))
      cx.uncertain('set -k makes assignments anywhere in a command line reach its environment');
    // Options that change what later commands do, on (`-`) or off (`+`): either may hold afterwards. An
    // option name that is not known may be any of them.
    const opts = cx.args;
    for (let k = 0; k < opts.length; k++) {
      const f = opts[k]!;
      const named = /^[-+]o$/.test(f.value) ? opts[k + 1] : undefined;
      const unknown = f.uncertain !== undefined || named?.uncertain !== undefined;
      if (unknown || /^[-+][a-zA-Z]*P/.test(f.value) || named?.value === 'physical')
        cx.shellOption('physical');
      if (unknown || /^[-+][a-zA-Z]*a/.test(f.value) || named?.value === 'allexport')
        cx.shellOption('allexport');
      if (unknown || named?.value === 'posix') cx.shellOption('posix');
      if (f.value === '--' || (!f.value.startsWith('-') && !f.value.startsWith('+'))) break;
      if (named) k++;
    }
  },
  hash: (cx) => {
    // `hash -p FILE NAME` makes NAME run FILE.
    if (cx.args.some((f) => f.value.startsWith('-') && f.value.includes('p')))
      cx.uncertain('hash -p rebinds a command name to another program');
  },
  enable: (cx) => {
    if (cx.args.some((f) => f.value === '-f')) cx.uncertain('enable -f loads a shared object');
  },
  test: testProgram,
  '[': testProgram,
  '[[': testProgram,
};

for (const name of [
  'echo',
  'true',
  'false',
  ':',
  'exit',
  'return',
  'shift',
  'wait',
  'jobs',
  'kill',
  'killall',
  'pkill',
  'sleep',
  'whoami',
  'id',
  'hostname',
  'uname',
  'pwd',
  'let',
  'type',
  'which',
  'whereis',
  'ulimit',
  'umask',
  'unalias',
  'break',
  'continue',
  'seq',
  'yes',
  'tput',
  'clear',
  'printenv',
  'locale',
  'nproc',
  'free',
  'uptime',
  'ps',
  'top',
  'tty',
  'logname',
  'groups',
  'users',
  'who',
  'w',
  'cal',
  'bc',
  'expr',
  'factor',
  'numfmt',
  'basename',
  'dirname',
  'times',
  'dirs',
  'disown',
  'bg',
  'fg',
  'suspend',
  'logout',
  'caller',
  'compgen',
  'complete',
  'help',
  'ping',
  'host',
  'dig',
  'nslookup',
  'arch',

  'pgrep',
  'lsof',
  'df',
  'sync',
  'stty',
  'getconf',
  'false',
]) {
  builtins[name] ??= noPaths;
}

/**
 * Builtins that are part of the shell itself and take precedence over any program table entry of the same
 * name: `test`/`[`/`[[` (path-free unless a file operator is used) and `source`/`.` (analysed in this shell).
 */
/**
 * source FILE [ARGS…] / . FILE: the file is read at check time and analysed as shell in this same shell (its
 * cd, assignments and functions carry on), bounded in size and depth. A name without a slash is searched
 * in $PATH first (bash's sourcepath), so it is not known which file that is.
 */
const source: CommandHandler = (cx) => {
  const [file, ...args] = cx.args;
  if (!file) {
    cx.uncertain(`${cx.name} without a file`);
    return;
  }
  cx.read(file, { tag: 'file' });
  if (file.uncertain === undefined && !file.value.includes('/') && !file.tilde) {
    cx.uncertain(`${cx.name} ${file.value} searches $PATH for the file first`, 'read');
    cx.chdir(null);
    return;
  }
  const content = cx.readContent(file);
  if ('uncertain' in content) {
    cx.uncertain(`what ${file.raw} runs cannot be analysed: ${content.uncertain}`);
    // It may cd anywhere: relative paths after it are unknown too.
    cx.chdir(null);
    return;
  }
  // With ARGS bash sets $1… for the file and restores them after; we leave them as they are (unknown
  // at the top level), which only makes more of the file uncertain, never less.
  void args;
  cx.script(content.text, cx.name === '.' ? 'dot' : 'source', { sameShell: true });
};

export const shellBuiltins: Record<string, CommandHandler> = {
  source,
  '.': source,
  test: testBuiltin,
  '[': testBuiltin,
  '[[': testBuiltin,
};
