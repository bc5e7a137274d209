import type { CommandHandler } from '../effects/extractTypes.js';
import { fieldAsValue } from '../state/expandWord.js';
import { parseArgs } from './argv.js';
import { literal, noPaths, simple } from './spec.js';

/** cd/pushd change the cwd for the rest of the list; `cd -`, `popd` or an unknown target make it unknown. */
const cd: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, {});
  const target = p.operands[0];
  if (!target) {
    const home = { ...literal('~'), tilde: true };
    cx.read(home, { tag: 'dir' });
    cx.chdir(home);
    return;
  }
  if (target.value === '-' || /^[+-]\d+$/.test(target.value)) {
    cx.chdir(null);
    return;
  }
  // The directory must be searchable: judge it as a read.
  cx.read(target, { tag: 'dir' });
  cx.chdir(target, true);
};

const popd: CommandHandler = (cx) => cx.chdir(null);

/** export/declare/local/readonly/typeset NAME=VALUE…: tracked like assignments. */
const declare: CommandHandler = (cx) => {
  if (cx.args.some((f) => /^-[a-zA-Z]*n/.test(f.value))) {
    cx.uncertain(`${cx.name} -n makes a name refer to another variable`);
  }
  for (const f of cx.args) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)(\+?)=/.exec(f.value);
    const v = m && !m[2] ? fieldAsValue(f, m[0].length) : null;
    if (m) cx.setVar(m[1]!, v === null ? null : [v]);
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(f.value) && cx.name !== 'export' && cx.name !== 'readonly')
      cx.setVar(f.value, null);
  }
};

/** read/mapfile/getopts/printf -v set variables to values we cannot know. */
const readVars: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, { short: 'adinNptuuCcOsv' });
  for (const f of p.operands) if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(f.value)) cx.setVar(f.value, null);
  for (const o of p.opts) if ((o.name === '-a' || o.name === '-v') && o.value) cx.setVar(o.value.value, null);
  if (cx.name === 'mapfile' || cx.name === 'readarray') cx.setVar('MAPFILE', null);
  cx.setVar('REPLY', null);
};

const unset: CommandHandler = (cx) => {
  for (const f of cx.args) if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(f.value)) cx.setVar(f.value, null);
};

/** trap 'CMD' SIGNAL…: the command runs later in this shell; analyse it. */
const trap: CommandHandler = (cx) => {
  const [action] = cx.args;
  if (!action || action.value.startsWith('-')) return;
  if (action.uncertain !== undefined) cx.uncertain(`trap action is not known: ${action.uncertain}`);
  else cx.script(action.value, 'trap');
};

/** Aliases are expanded later by the shell itself; we do not track them. */
const alias: CommandHandler = (cx) => {
  if (cx.args.some((f) => f.value.includes('='))) cx.uncertain('alias definitions are not analysed');
};

const printf: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, { short: 'v', posix: true });
  for (const o of p.opts) if (o.name === '-v' && o.value) cx.setVar(o.value.value, null);
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
  getopts: noPaths,
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
  hash: (cx) => {
    // `hash -p FILE NAME` makes NAME run FILE.
    if (cx.args.some((f) => f.value.startsWith('-') && f.value.includes('p')))
      cx.uncertain('hash -p rebinds a command name to another program');
  },
  enable: (cx) => {
    if (cx.args.some((f) => f.value === '-f')) cx.uncertain('enable -f loads a shared object');
  },
};

for (const name of [
  'echo',
  'true',
  'false',
  ':',
  'exit',
  'return',
  'shift',
  'set',
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
  'shopt',
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
