import type { CommandContext, CommandHandler } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { type ArgSpec, has, parseArgs, values } from '../argv.js';
import { literal, unknownOptions } from '../spec.js';
import { findActionFilter } from './findFilter.js';
import { FIND_ARG, FIND_EXEC, FIND_NEWER_XY, FIND_NOARG, FIND_STAT, FIND_WRITE } from './findPrimaries.js';
import { dashNameBeneath, type SpelledPaths } from './xargsNames.js';
import { xargsItems } from './xargsSplit.js';

/** More start points or items than this from a file is not everyday use: uncertain instead of slow. */
const MAX_ITEMS = 1000;
/** An xargs input file larger than this could need several command lines: uncertain. */
const MAX_INPUT = 64 * 1024;

/** `-files0-from FILE`: the start points, NUL-separated, read at check time. */
function startsFrom(cx: CommandContext, f: Field): Field[] | null {
  cx.read(f, { tag: 'files0-from' });
  const c = f.value === '-' ? { uncertain: 'the start points come from stdin' } : cx.readContent(f);
  if ('uncertain' in c) {
    cx.uncertain(`find -files0-from ${f.raw}: ${c.uncertain}`, 'read');
    return null;
  }
  const names = c.text.split('\0').filter((n) => n !== '');
  if (names.length > MAX_ITEMS) {
    cx.uncertain(`find -files0-from ${f.raw}: more than ${MAX_ITEMS} start points`, 'read');
    return null;
  }
  return names.map(literal);
}

/**
 * find: the start points are listed as subtrees (names and metadata: `-name`, `-type`, `-newer`, `-print`,
 * `-ls` open no file); `-delete` deletes them; `-fprint F` writes F; `-exec CMD {} ;` runs CMD with `{}`
 * standing for every path found — judged as the subtrees of the start points, in the role CMD gives it.
 * Symlinks: `-P` (default) lists a link, `-H` follows start points, `-L`/`-follow` every link met.
 */
const find: CommandHandler = (cx) => {
  const args = cx.args;
  let k = 0;
  let mode = '-P';
  while (
    k < args.length &&
    args[k]!.uncertain === undefined &&
    /^-[HLP]+$|^-O\d*$|^-D$/.test(args[k]!.value)
  ) {
    const v = args[k]!.value;
    if (/^-[HLP]+$/.test(v)) mode = `-${v[v.length - 1]}`;
    k += v === '-D' ? 2 : 1;
  }
  let starts: Field[] = [];
  while (k < args.length) {
    const f = args[k]!;
    const v = f.value;
    if (f.uncertain === undefined && (v.startsWith('-') || v === '(' || v === '!' || v === ')' || v === ','))
      break;
    starts.push(f);
    k++;
  }
  // `--` ends find's options: a start point may then begin with `-` (find -- /etc -delete).
  if (starts.length === 0 && args[k]?.value === '--') {
    k++;
    while (k < args.length && (args[k]!.uncertain !== undefined || !/^[-(!),]/.test(args[k]!.value)))
      starts.push(args[k++]!);
  }
  const expr = args.slice(k);
  const follow = mode === '-L' || expr.some((f) => f.value === '-follow');
  for (let j = 0; j < expr.length; j++) {
    if (expr[j]!.value === '-files0-from' && expr[j + 1]) {
      const more = startsFrom(cx, expr[j + 1]!);
      if (more) starts = [...starts, ...more];
    }
  }
  if (starts.length === 0 && !expr.some((f) => f.value === '-files0-from')) starts.push(literal('.'));
  const startOpts = {
    scope: 'subtree' as const,
    ...(follow ? { followLinks: true } : {}),
    ...(follow || mode === '-H' ? {} : { followFinal: false }),
  };
  for (const s of starts) cx.emit(s, 'list', startOpts);
  // What find prints: the paths found, one a line or NUL-terminated, unless an action prints anything else.
  const printed = new Set<string>();
  let printsOther = follow || expr.some((f) => f.value === '-files0-from');
  for (let j = 0; j < expr.length; j++) {
    const f = expr[j]!;
    const v = f.value;
    if (f.uncertain !== undefined) {
      cx.uncertain(`find: ${f.raw} may be any primary`, 'write', f.raw);
      printsOther = true;
      continue;
    }
    if (v === '-print' || v === '-print0') printed.add(v);
    if (v === '-ls' || v === '-printf' || v === '-delete' || FIND_WRITE.has(v) || FIND_EXEC.has(v))
      printsOther = true;
    if (v === '(' || v === ')' || v === '!' || v === ',' || FIND_NOARG.has(v)) {
      if (v === '-delete')
        for (const s of starts) {
          const filter = findActionFilter(expr, j, s, follow);
          cx.write(s, { ...startOpts, followFinal: false, tag: 'delete', ...(filter ? { filter } : {}) });
        }
      continue;
    }
    if (FIND_ARG.has(v)) {
      j++;
      continue;
    }
    if (v === '-files0-from') {
      j++;
      continue;
    }
    const xy = FIND_NEWER_XY.exec(v);
    if (FIND_STAT.has(v) || xy) {
      const arg = expr[++j];
      if (arg && !(xy && xy[2] === 't')) cx.emit(arg, 'list', { tag: v.slice(1) });
      continue;
    }
    if (FIND_WRITE.has(v)) {
      const arg = expr[++j];
      if (arg) cx.write(arg, { tag: v.slice(1) });
      if (v === '-fprintf') j++;
      continue;
    }
    if (FIND_EXEC.has(v)) {
      const argv: Field[] = [];
      const filters = starts.map((s) => findActionFilter(expr, j, s, follow));
      const inDir = v === '-execdir' || v === '-okdir';
      for (j++; j < expr.length; j++) {
        const a = expr[j]!;
        if (a.value === ';' || (a.value === '+' && argv.length > 0 && argv[argv.length - 1]!.value === '{}'))
          break;
        const relative = a.uncertain === undefined && !a.value.startsWith('/') && !a.tilde;
        // `{}` is every path found. With -execdir the command runs inside each directory found, so any
        // relative word may name something anywhere beneath the start points as well.
        if (a.uncertain === undefined && a.value === '{}') argv.push(cx.under(starts, a.raw, filters));
        else if (a.uncertain === undefined && a.value.includes('{}')) argv.push(embedded(a));
        else if (inDir && argv.length > 0 && relative && !a.value.startsWith('-'))
          argv.push(cx.under(starts, a.raw));
        else argv.push(a);
      }
      // With -L the paths `{}` stands for lie through links the nested command cannot be told to follow.
      if (follow)
        cx.uncertain(
          `find ${mode === '-L' ? '-L' : '-follow'} ${v}: the paths found follow symlinks`,
          'write',
        );
      cx.exec(argv);
      continue;
    }
    cx.uncertain(`find: ${v} is not a primary we know`, 'write', v);
    printsOther = true;
  }
  const plain = starts.every((s) => s.uncertain === undefined && s.glob < 0 && !s.under && !s.pipe);
  if (!printsOther && printed.size < 2 && plain) {
    // find prints each path beginning with its start point as given (`./-x`, never `-x`).
    const paths: SpelledPaths = {
      roots: starts,
      filters: starts.map((s) => findActionFilter(expr, expr.length, s, follow)),
      nul: printed.has('-print0'),
      asGiven: true,
    };
    cx.printsPaths(paths);
  }
};

/** `xargs --help`, GNU findutils 4.9.0 (arities probed; `-e`, `-i`, `-l` take their value attached only). */
export const XARGS: ArgSpec = {
  short: 'adnsEILP',
  shortFlags: 'oprtx0',
  optionalShort: 'eil',
  long: ['arg-file', 'delimiter', 'max-args', 'max-chars', 'max-lines', 'max-procs', 'process-slot-var'],
  flags: [
    'exit',
    'interactive',
    'no-run-if-empty',
    'null',
    'open-tty',
    'show-limits',
    'verbose',
    'eof',
    'replace',
    'help',
    'version',
  ],
  posix: true,
};

/** `\n`, `\t`, `\0`, `\\` and single characters, as `xargs -d` takes them. */
function delimiterOf(v: string): string | null {
  const esc: Record<string, string> = { '\\n': '\n', '\\t': '\t', '\\0': '\0', '\\\\': '\\' };
  if (esc[v] !== undefined) return esc[v]!;
  return [...v].length === 1 ? v : null;
}

/**
 * A word holding the placeholder inside it (`{}.bak`, `/backup/{}`, `-I F … dir/F`): each path found put in
 * the word's place — names that do not exist yet, which a walk of what exists cannot judge (a `{}.env`, or a
 * `/backup/{}` beneath a rule of its own). Not known.
 */
function embedded(word: Field): Field {
  return {
    ...word,
    uncertain: `${word.raw}: the paths it is given, with more around them, name files that do not exist yet`,
  };
}

/**
 * The items on xargs's stdin when a pipe brings paths of a known set (`find src -name '*.ts' | xargs wc -l`):
 * a field standing for every path beneath find's start points. Exact with `-print0 | xargs -0`; one a line,
 * only while no name there holds a blank, newline, quote or backslash (xargs would split it into other,
 * cwd-relative paths) — checked on what exists now, and against what the line itself writes there.
 */
function pipedPaths(
  cx: CommandContext,
  p: ReturnType<typeof parseArgs>,
  /** The command ends its options (`--`) before the items: a name starting with `-` is an operand. */
  operandsOnly: boolean,
): Field | undefined {
  const paths: SpelledPaths | undefined = cx.stdinPaths();
  if (!paths) return undefined;
  const nul = has(p, '-0', '--null');
  // A delimiter of its own, or NULs read as lines (and the reverse): items that are not the paths.
  if (nul !== paths.nul || values(p, '-d', '--delimiter').length > 0) return undefined;
  // A printed name starting with `-` reaches the command as an option (`git ls-files | xargs wc` with a
  // tracked `--files0-from=list`): the items are then not known as paths.
  if (!operandsOnly) {
    const dash = dashNameBeneath(paths, (root) => cx.resolveDir(root));
    if (dash !== undefined)
      return { ...cx.fromStdin('<stdin>'), uncertain: `xargs may hand its command an option: ${dash}` };
    if (nul && !paths.asGiven) {
      // What the line creates beneath the roots first is checked after the line (a new `-x`).
      const reals = paths.roots.map((r) => cx.resolveDir(r));
      if (reals.some((r) => r === null)) return undefined;
      cx.takePipedPaths(reals as string[]);
    }
  }
  if (!nul) {
    // After `--` a name starting with `-` is an operand: only blanks and quotes matter then.
    const reals = cx.splitRoots(operandsOnly ? { ...paths, asGiven: true } : paths);
    if (reals === null) return undefined;
    if (!Array.isArray(reals)) {
      cx.uncertain(`xargs splits the paths it is given at blanks: ${reals.splits}`, 'read', '<stdin>');
      return undefined;
    }
    cx.takePipedPaths(reals);
  }
  // Marked unknown as a value: a handler that reads the word itself (not as paths) must not take `<stdin>` literally.
  return { ...cx.under(paths.roots, '<stdin>', paths.filters), uncertain: 'the paths xargs is given' };
}

/**
 * xargs CMD ARGS: CMD also gets items read from its input. From stdin they are unknown (any access on them is
 * uncertain); with `-a FILE` they are read at check time and split as xargs splits them, then CMD is analysed
 * once per command line xargs would run (`-n`, `-L`, `-I` decide how many items each gets).
 */
const xargs: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, XARGS);
  unknownOptions(cx, p);
  const iOpt = p.opts.find((o) => o.name === '-I' || o.name === '-i' || o.name === '--replace');
  const replace = iOpt ? (iOpt.value?.value ?? '{}') : undefined;
  const cmd = p.operands.length > 0 ? [...p.operands] : [literal('echo')];
  const files = values(p, '-a', '--arg-file');
  if (files.length === 0) {
    // `--` in the command before where the items go: they are operands whatever they start with.
    const at =
      replace === undefined ? cmd.length : cmd.findIndex((f, idx) => idx > 0 && f.value.includes(replace));
    // Not for a shell: after `-c SCRIPT` a `--` is `$0`, and the script passes `"$@"` on as it likes.
    const shell = /(^|\/)(ba|da|z|k|mk|a)?sh$|(^|\/)busybox$/.test(cmd[0]?.value ?? '');
    const operandsOnly = !shell && cmd.slice(1, at === -1 ? cmd.length : at).some((f) => f.value === '--');
    const stdin = pipedPaths(cx, p, operandsOnly) ?? cx.fromStdin('<stdin>');
    if (replace !== undefined)
      cx.exec(
        cmd.map((f, idx) =>
          idx > 0 && f.value.includes(replace)
            ? f.value === replace
              ? { ...stdin, raw: f.raw }
              : embedded(f)
            : f,
        ),
      );
    else cx.exec([...cmd, stdin]);
    return;
  }
  const file = files[files.length - 1]!;
  cx.read(file, { tag: 'arg-file' });
  const items = argItems(cx, p, file, replace !== undefined || has(p, '-L', '-l', '--max-lines'));
  if (items === null) {
    // Unknown items: analyse CMD with an operand that is uncertain wherever it lands.
    const unknown = {
      ...cx.fromStdin(file.raw),
      uncertain: `xargs -a ${file.raw}: its items cannot be known`,
    };
    cx.exec(
      replace !== undefined
        ? cmd.map((f, idx) => (idx > 0 && f.value.includes(replace) ? unknown : f))
        : [...cmd, unknown],
    );
    return;
  }
  if (replace !== undefined) {
    for (const item of items) {
      cx.exec(
        cmd.map((f, idx) =>
          idx > 0 && f.value.includes(replace) ? literal(f.value.split(replace).join(item)) : f,
        ),
      );
    }
    return;
  }
  const per = Number(
    values(p, '-n', '--max-args', '-L', '--max-lines')[0]?.value ?? (has(p, '-l') ? '1' : 'NaN'),
  );
  const size = Number.isInteger(per) && per > 0 ? per : items.length;
  if (items.length === 0 && !has(p, '-r', '--no-run-if-empty')) cx.exec(cmd);
  for (let i = 0; i < items.length; i += size) cx.exec([...cmd, ...items.slice(i, i + size).map(literal)]);
};

function argItems(
  cx: CommandContext,
  p: ReturnType<typeof parseArgs>,
  file: Field,
  lines: boolean,
): string[] | null {
  if (file.value === '-') return null;
  if (has(p, '-s', '--max-chars')) {
    cx.uncertain('xargs -s: where it splits the command lines is not known', 'write');
    return null;
  }
  const content = cx.readContent(file, MAX_INPUT);
  if ('uncertain' in content) {
    cx.uncertain(`xargs -a ${file.raw}: ${content.uncertain}`, 'read');
    return null;
  }
  const d = values(p, '-d', '--delimiter')[0];
  const delimiter = d ? delimiterOf(d.value) : undefined;
  if (delimiter === null) {
    cx.uncertain(`xargs -d ${d!.raw}: a delimiter we do not read`, 'read');
    return null;
  }
  const eof = values(p, '-E', '-e', '--eof')[0]?.value;
  const items = xargsItems(content.text, {
    nul: has(p, '-0', '--null'),
    ...(delimiter !== undefined ? { delimiter } : {}),
    lines,
    ...(eof !== undefined && eof !== '' ? { eof } : {}),
  });
  if (items === null || items.length > MAX_ITEMS) {
    cx.uncertain(
      `xargs -a ${file.raw}: ${items === null ? 'an unmatched quote' : `more than ${MAX_ITEMS} items`}`,
      'read',
    );
    return null;
  }
  return items;
}

export const findXargs: Record<string, CommandHandler> = { find, xargs };
