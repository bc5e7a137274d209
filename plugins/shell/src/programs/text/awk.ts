import type { CommandContext, CommandHandler } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { type ArgSpec, type ParsedArgs, parseArgs } from '../argv.js';
import { literal, unknownOptions } from '../spec.js';
import { awkProgramEffects } from './awkProgram.js';

// gawk 5.2 `gawk --help` and mawk 1.3.4 `mawk -W usage`, merged: `awk` is either one depending on the host.
// `-d`/`-D`/`-o`/`-p`/`-L` take an optional attached value in gawk.
const AWK: ArgSpec = {
  short: 'fFvEeilW',
  optionalShort: 'dDopL',
  shortFlags: 'bcCghIMNnOPrsStV',
  long: ['file', 'field-separator', 'assign', 'exec', 'source', 'include', 'load'],
  flags: [
    'characters-as-bytes',
    'traditional',
    'copyright',
    'dump-variables',
    'debug',
    'gen-pot',
    'help',
    'trace',
    'lint',
    'bignum',
    'use-lc-numeric',
    'non-decimal-data',
    'pretty-print',
    'optimize',
    'profile',
    'posix',
    're-interval',
    'no-optimize',
    'sandbox',
    'lint-old',
    'version',
  ],
};

// mawk's `-W` options that touch nothing (`-W exec F` is handled as a program file).
const W_HARMLESS = /^(version|help|usage|interactive|posix_space|sprintf=\d+|random=\d+)$/;

/** Program text from `-f`/`-E`/`--exec` files (read for analysis) and `-e`/`--source`, in order. */
function programFiles(cx: CommandContext, p: ParsedArgs): string[] | null {
  const texts: string[] = [];
  for (const o of p.opts) {
    if (!o.value) continue;
    const fromFile = ['-f', '--file', '-E', '--exec'].includes(o.name);
    if (['-e', '--source'].includes(o.name)) {
      if (o.value.uncertain !== undefined) return unknown(cx, o.value);
      texts.push(o.value.value);
    } else if (fromFile) {
      if (o.value.value === '-' || o.value.value === '/dev/stdin') return unknown(cx, o.value);
      cx.read(o.value, { tag: 'program-file' });
      const c = cx.readContent(o.value, 64 * 1024);
      if ('uncertain' in c) {
        cx.uncertain(`the awk program file cannot be analysed: ${c.uncertain}`, 'write', o.value.raw);
        return null;
      }
      texts.push(c.text);
    }
  }
  return texts;
}

function unknown(cx: CommandContext, f: Field): null {
  cx.uncertain(`the awk program is not known: ${f.uncertain ?? f.raw}`, 'write', f.raw);
  return null;
}

/**
 * awk/gawk/mawk: the program (first operand unless `-f`/`-e`/`-E`) is scanned for the files it writes and
 * reads and the commands it runs; operands are input files, except `var=value` assignments. gawk's
 * `-i inplace` rewrites each input file (replacing a symlink, like `sed -i`).
 */
const awk: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, AWK);
  unknownOptions(cx, p);
  if (p.strays.length > 0) cx.unknownOperands(p.strays);
  let inPlace = false;
  for (const o of p.opts) {
    const v = o.value?.value;
    // mawk's `-W exec F` included: rare enough that reading its program file is not worth the code.
    if (o.name === '-W' && v !== undefined && !W_HARMLESS.test(v))
      cx.uncertain(`awk -W ${v} is not in its table`, 'write', o.value?.raw);
    if ((o.name === '-i' || o.name === '--include') && v !== undefined) {
      if (v === 'inplace' || v === 'inplace.awk') inPlace = true;
      else cx.uncertain(`awk ${o.name} ${v} pulls in code that is not analysed`, 'write', o.value?.raw);
    }
    if (o.name === '-l' || o.name === '--load') cx.uncertain('awk -l loads a compiled extension', 'write');
    // gawk's debugger reads commands from stdin or a file.
    if (o.name === '-D' || o.name === '--debug') cx.uncertain('gawk --debug runs debugger commands', 'write');
    if (['-d', '--dump-variables'].includes(o.name))
      cx.write(o.value ?? literal('awkvars.out'), { tag: 'dump' });
    if (['-p', '--profile', '-o', '--pretty-print'].includes(o.name))
      cx.write(o.value ?? literal('awkprof.out'), { tag: 'profile' });
    if (['-v', '--assign'].includes(o.name) && v !== undefined && /^(inplace::|INPLACE_)/.test(v))
      cx.uncertain('gawk inplace backups go where its variables say', 'write');
  }
  // `--dump-variables=F`, `--profile=F`, `--pretty-print=F`: parseArgs drops a flag's `=value`.
  for (const f of cx.args) {
    const m = /^--(dump-variables|profile|pretty-print)=(.+)$/s.exec(f.value);
    if (m) cx.write({ ...f, value: m[2]!, glob: -1, tilde: false }, { tag: m[1] });
  }
  if (
    p.operands.length === 0 &&
    p.opts.some((o) => o.name === '--version' || o.name === '-V' || o.name === '--help')
  )
    return;
  const fromFiles = p.opts.some((o) => ['-f', '--file', '-E', '--exec'].includes(o.name));
  let texts = programFiles(cx, p);
  let inputs = p.operands;
  if (!fromFiles && !p.opts.some((o) => o.name === '-e' || o.name === '--source')) {
    const [prog, ...rest] = p.operands;
    inputs = rest;
    if (!prog) {
      cx.uncertain('awk without a program');
      return;
    }
    if (prog.uncertain !== undefined || prog.under) texts = unknown(cx, prog);
    else texts?.push(prog.value);
  }
  if (texts !== null && !p.opts.some((o) => o.name === '-S' || o.name === '--sandbox')) {
    const fx = awkProgramEffects(texts.join('\n'));
    if (fx.problem) cx.uncertain(`awk program: ${fx.problem}`, 'write');
    for (const f of fx.reads) cx.read(literal(f), { tag: 'getline' });
    for (const f of fx.writes) cx.write(literal(f), { tag: 'print' });
    for (const c of fx.commands) cx.script(c, 'awk-command');
  }
  const exec = p.opts.some((o) => o.name === '-E' || o.name === '--exec');
  for (const f of inputs) {
    // `var=value` operands are assignments made when awk reaches them, not files.
    // …except under gawk's -E/--exec, which turns command-line assignments off: then they are file names.
    if (!exec && /^[A-Za-z_][A-Za-z0-9_]*=/.test(f.value) && f.uncertain === undefined) continue;
    if (f.value === '-' && f.glob === -1) continue;
    cx.read(f);
    if (inPlace) cx.write(f, { followFinal: false });
  }
};

export const awkFamily: Record<string, CommandHandler> = { awk, gawk: awk, mawk: awk, nawk: awk };
