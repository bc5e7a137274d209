import type { CommandHandler } from '../effects/extractTypes.js';
import type { Field } from '../state/expandWord.js';
import { parseArgs, values } from './argv.js';
import { followsLinks, literal } from './spec.js';

const FIND_ARG = new Set([
  '-name',
  '-iname',
  '-path',
  '-ipath',
  '-regex',
  '-iregex',
  '-type',
  '-xtype',
  '-perm',
  '-user',
  '-group',
  '-size',
  '-mtime',
  '-atime',
  '-ctime',
  '-mmin',
  '-amin',
  '-cmin',
  '-maxdepth',
  '-mindepth',
  '-links',
  '-inum',
  '-uid',
  '-gid',
  '-printf',
  '-fstype',
  '-wholename',
  '-iwholename',
  '-lname',
  '-ilname',
  '-used',
  '-context',
  '-regextype',
  '-D',
  '-O',
]);
const FIND_READ = new Set(['-newer', '-anewer', '-cnewer', '-samefile', '-files0-from']);
const FIND_WRITE = new Set(['-fprint', '-fprint0', '-fls', '-fprintf']);
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);

/**
 * find: start paths are read as subtrees; `-delete` writes them; `-exec CMD {} ;` runs CMD with `{}` standing
 * for every path found — judged as the subtrees of the start paths, with whatever role CMD gives it.
 */
const find: CommandHandler = (cx) => {
  const args = cx.args;
  let k = 0;
  let follow = false;
  while (k < args.length && /^-[HLP]$|^-O\d$|^-D$/.test(args[k]!.value)) {
    if (args[k]!.value === '-L') follow = true;
    if (args[k]!.value === '-P') follow = false;
    k += args[k]!.value === '-D' ? 2 : 1;
  }
  const starts: Field[] = [];
  while (k < args.length) {
    const v = args[k]!.value;
    if (
      args[k]!.uncertain === undefined &&
      (v.startsWith('-') || v === '(' || v === '!' || v === ')' || v === ',')
    )
      break;
    starts.push(args[k]!);
    k++;
  }
  if (starts.length === 0) starts.push(literal('.'));
  // Without -H/-L, find does not follow a start point that is a symlink: it lists the link.
  const followStarts = follow || args.slice(0, k).some((f) => f.value === '-H');
  for (const s of starts) cx.read(s, { scope: 'subtree', followFinal: followStarts });
  if (follow || args.some((f) => f.value === '-follow')) followsLinks(cx, 'read');
  for (; k < args.length; k++) {
    const f = args[k]!;
    const v = f.value;
    if (FIND_READ.has(v)) {
      const arg = args[++k];
      if (arg) cx.read(arg, { tag: v.slice(1) });
    } else if (FIND_ARG.has(v) || v.startsWith('-newer')) {
      // `-newerXY FILE` compares with FILE's times unless Y is `t` (a date string).
      const arg = args[k + 1];
      if (arg && v.startsWith('-newer') && !v.endsWith('t')) cx.read(arg, { tag: v.slice(1) });
      k++;
    } else if (FIND_WRITE.has(v)) {
      const arg = args[++k];
      if (arg) cx.write(arg, { tag: v.slice(1) });
      if (v === '-fprintf') k++;
    } else if (v === '-delete') {
      for (const s of starts) cx.write(s, { scope: 'subtree', followFinal: false, tag: 'delete' });
    } else if (FIND_EXEC.has(v)) {
      const argv: Field[] = [];
      k++;
      for (; k < args.length; k++) {
        const a = args[k]!;
        if (a.value === ';' || (a.value === '+' && argv.length > 0 && argv[argv.length - 1]!.value === '{}'))
          break;
        argv.push(a.value.includes('{}') && a.uncertain === undefined ? cx.under(starts, a.raw) : a);
      }
      cx.exec(argv);
    }
  }
};

/**
 * xargs CMD ARGS: CMD also gets operands read from stdin, which are unknown — any access on them is
 * uncertain. `-I R` puts them where R appears instead.
 */
const xargs: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, {
    short: 'adEILlnPsi',
    long: [
      'arg-file',
      'delimiter',
      'eof',
      'replace',
      'max-lines',
      'max-args',
      'max-procs',
      'max-chars',
      'process-slot-var',
    ],
    posix: true,
  });
  for (const f of values(p, '-a', '--arg-file')) cx.read(f, { tag: 'arg-file' });
  const replace =
    values(p, '-I', '--replace', '-i')[0]?.value ??
    (p.opts.some((o) => o.name === '-i' || o.name === '--replace') ? '{}' : undefined);
  const cmd = p.operands.length > 0 ? [...p.operands] : [literal('echo')];
  const stdin = cx.fromStdin('<stdin>');
  if (replace !== undefined) {
    const argv = cmd.map((f, idx) => (idx > 0 && f.value.includes(replace) ? { ...stdin, raw: f.raw } : f));
    cx.exec(argv);
  } else cx.exec([...cmd, stdin]);
};

export const findXargs: Record<string, CommandHandler> = { find, xargs };
