import type { CommandContext, CommandHandler } from '../../effects/extractTypes.js';
import { type Field, fieldAsValue } from '../../state/expandWord.js';
import { type ArgSpec, has, parseArgs, values } from '../argv.js';
import { emitOptions } from '../spec.js';

/** A wrapper runs the rest of its argv as a command after its own options (POSIX: options stop at it). */
function wrapper(
  spec: ArgSpec,
  before?: (cx: CommandContext, rest: Field[], p: ReturnType<typeof parseArgs>) => Field[] | undefined,
  env?: 'other-user',
): CommandHandler {
  return (cx) => {
    const p = parseArgs(cx.args, { ...spec, posix: true });
    let rest = p.operands;
    if (before) {
      const r = before(cx, rest, p);
      if (r === undefined) return;
      rest = r;
    }
    cx.exec(rest, env);
  };
}

const sudo = wrapper(
  {
    short: 'CDghpRrTtUu',
    long: [
      'close-from',
      'chdir',
      'group',
      'host',
      'prompt',
      'chroot',
      'role',
      'type',
      'command-timeout',
      'other-user',
      'user',
    ],
  },
  (cx, rest, p) => {
    if (has(p, '-e', '--edit')) {
      for (const f of rest) cx.write(f);
      return undefined;
    }
    if (has(p, '-R', '--chroot')) {
      cx.uncertain('sudo --chroot changes the root every path is resolved against');
      return undefined;
    }
    const dir = values(p, '-D', '--chdir')[0];
    if (dir) {
      cx.emit(dir, 'list', { tag: 'chdir' });
      cx.chdir(dir);
    }
    if (rest.length === 0 && has(p, '-s', '--shell', '-i', '--login')) {
      cx.uncertain('an interactive root shell reads its commands from stdin');
    }
    return rest;
  },
  'other-user',
);

/** env [-i] [-u NAME] [-C DIR] [NAME=VALUE]… CMD: assignments reach the command's environment. */
const env: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, {
    short: 'uCSP',
    long: ['unset', 'chdir', 'split-string', 'default-signal', 'ignore-signal', 'block-signal'],
    posix: true,
  });
  if (has(p, '-S', '--split-string')) {
    const s = values(p, '-S', '--split-string')[0];
    if (s)
      cx.script(
        s.uncertain === undefined ? `${s.value} ${p.operands.map((f) => f.value).join(' ')}` : '$(unknown)',
        'env-S',
      );
    return;
  }
  const dir = values(p, '-C', '--chdir')[0];
  if (dir) cx.chdir(dir);
  let k = 0;
  const vars: [string, string[] | null][] = [];
  for (; k < p.operands.length; k++) {
    const f = p.operands[k]!;
    // env takes any name before `=`, also ones a shell could not assign (`BASH_FUNC_cat%%=() {…}`: an
    // exported function the bash it starts imports — env's command then runs that code).
    const m = /^([^=]+)=/.exec(f.value);
    if (!m) break;
    if (m[1]!.startsWith('BASH_FUNC_')) {
      cx.uncertain(`${m[1]} in the environment defines a function for the shell it starts`);
      continue;
    }
    const v = fieldAsValue(f, m[0].length);
    if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(m[1]!)) vars.push([m[1]!, v === null ? null : [v]]);
  }
  // `env -i` empties the environment the command (and any shell it starts) sees; the assignments are
  // its environment only, not this shell's afterwards.
  cx.exec(p.operands.slice(k), has(p, '-i', '--ignore-environment') ? 'clean' : undefined, vars);
};

const timeout = wrapper({ short: 'ks', long: ['kill-after', 'signal'] }, (_cx, rest) => rest.slice(1));
const nice = wrapper({ short: 'n', long: ['adjustment'] });
const ionice = wrapper({ short: 'cnpPtu', long: ['class', 'classdata', 'pid', 'pgid', 'uid'] });
const stdbuf = wrapper({ short: 'ioe', long: ['input', 'output', 'error'] });
const nohup = wrapper({});
const setsid = wrapper({});
const builtin = wrapper({});
const command = wrapper({}, (_cx, rest, p) => (has(p, '-v', '-V') ? undefined : rest));
const exec = wrapper({ short: 'a' });
const chrt = wrapper({}, (_cx, rest) => rest.slice(1));
const taskset = wrapper({ short: 'c' }, (_cx, rest, p) =>
  has(p, '-p', '-c') && !has(p, '-c') ? undefined : has(p, '-c') ? rest : rest.slice(1),
);

/** GNU time writes its report with `-o FILE`. */
const time = wrapper({ short: 'fo', long: ['format', 'output'] }, (cx, rest, p) => {
  emitOptions(cx, p, { '-o': 'write', '--output': 'write' });
  return rest;
});

/** strace/ltrace: `-o FILE` write, then the traced command. */
const tracer = wrapper(
  { short: 'eoOpPsSuEaXbI', long: ['output', 'trace', 'signal', 'attach', 'user', 'env'] },
  (cx, rest, p) => {
    emitOptions(cx, p, { '-o': 'write', '--output': 'write' });
    return rest;
  },
);

/** flock FILE CMD / flock FILE -c 'script': the lock file is created (written). */
const flock: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, {
    short: 'wEc',
    long: ['timeout', 'conflict-exit-code', 'command'],
    posix: true,
  });
  const [file, ...rest] = p.operands;
  if (file && !/^\d+$/.test(file.value)) cx.write(file, { tag: 'lock' });
  // `-c` may come before or after the file.
  const after = rest[0]?.value === '-c' || rest[0]?.value === '--command' ? rest[1] : undefined;
  const c = values(p, '-c', '--command')[0] ?? after;
  if (c) {
    if (c.uncertain !== undefined || c.under) cx.uncertain(c.uncertain ?? 'flock -c of substituted text');
    else cx.script(c.value, 'flock-c');
  } else cx.exec(rest);
};

/** watch joins its arguments and runs them with `sh -c`. */
const watch: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, { short: 'dnq', long: ['interval', 'differences', 'chgexit'], posix: true });
  if (p.operands.some((f) => f.uncertain !== undefined))
    cx.uncertain('watch runs a command built from unknown values');
  else cx.script(p.operands.map((f) => f.value).join(' '), 'watch');
};

/** su/runuser: `-c CMD` runs a script; without it, a shell reads stdin. */
const su: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, {
    short: 'cgGsw',
    long: ['command', 'group', 'supp-group', 'shell', 'whitelist-environment', 'session-command'],
  });
  const c = values(p, '-c', '--command', '--session-command')[0];
  if (c) {
    if (c.uncertain !== undefined) cx.uncertain(c.uncertain);
    // The script runs as the other user: `~` and `$HOME` inside it are theirs.
    else
      cx.exec(
        [
          { value: 'sh', raw: 'sh', glob: -1, tilde: false },
          { value: '-c', raw: '-c', glob: -1, tilde: false },
          c,
        ],
        'other-user',
      );
  } else cx.uncertain(`${cx.name} starts a shell that reads its commands from stdin`);
};

const chroot: CommandHandler = (cx) => {
  const [dir] = cx.args;
  if (dir) cx.read(dir, { scope: 'subtree' });
  cx.uncertain('chroot changes the root every path is resolved against');
};

/** Programs that run commands we cannot see: later, elsewhere, or from their stdin. */
function runsHidden(why: string): CommandHandler {
  return (cx) => cx.uncertain(`${cx.name} ${why}`);
}

/** vi/vim/nvim/emacs/nano: operands are edited (written); `-c CMD`/`+CMD` run editor commands, which can run anything. */
const editor: CommandHandler = (cx) => {
  for (const f of cx.args) {
    if (
      f.value.startsWith('+') ||
      f.value === '-c' ||
      f.value === '--cmd' ||
      f.value === '-S' ||
      f.value === '--eval' ||
      f.value === '-l' ||
      f.value === '--load'
    ) {
      cx.uncertain(`${cx.name} ${f.value} runs editor commands`);
      return;
    }
  }
  const operands = cx.args.filter((f) => !f.value.startsWith('-') || f.uncertain !== undefined);
  for (const f of operands) cx.write(f);
};

export const wrappers: Record<string, CommandHandler> = {
  at: runsHidden('runs commands from its input later'),
  batch: runsHidden('runs commands from its input later'),
  crontab: runsHidden('installs commands that run later'),
  'systemd-run': runsHidden('runs a command in another environment'),
  tmux: runsHidden('runs commands in a terminal session'),
  screen: runsHidden('runs commands in a terminal session'),
  expect: runsHidden('runs a script we do not analyse'),
  nsenter: runsHidden('runs a command in other namespaces'),
  unshare: runsHidden('runs a command in new namespaces'),
  script: (cx) => {
    const p = parseArgs(cx.args, {
      short: 'cEIOTBm',
      long: ['command', 'echo', 'log-in', 'log-out', 'log-timing', 'log-io', 'timing', 'logging-format'],
    });
    const c = values(p, '-c', '--command')[0];
    for (const f of p.operands) cx.write(f, { tag: 'typescript' });
    if (p.operands.length === 0)
      cx.write({ value: 'typescript', raw: 'typescript', glob: -1, tilde: false }, { tag: 'typescript' });
    if (!c) cx.uncertain('script starts a shell that reads its commands from the terminal');
    else if (c.uncertain !== undefined) cx.uncertain(c.uncertain);
    else cx.script(c.value, 'script-c');
  },
  vi: editor,
  vim: editor,
  nvim: editor,
  view: editor,
  emacs: editor,
  nano: editor,
  sudo,
  doas: wrapper({ short: 'uC' }, undefined, 'other-user'),
  env,
  timeout,
  nice,
  ionice,
  stdbuf,
  nohup,
  setsid,
  builtin,
  command,
  exec,
  chrt,
  taskset,
  time,
  strace: tracer,
  ltrace: tracer,
  flock,
  watch,
  su,
  runuser: su,
  chroot,
  unbuffer: wrapper({}),
  chronic: wrapper({}),
  caffeinate: wrapper({}),
  '!': wrapper({}),
  busybox: wrapper({}),
};
