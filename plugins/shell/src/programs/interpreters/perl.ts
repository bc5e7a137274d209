import type { CommandHandler } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { backupOf } from '../text/inPlaceBackup.js';
import { perlCodeProblem } from './perlOneLiner.js';
import { runsCode } from './runsCode.js';

// Modules `-M`/`-m` may load in a plain one-liner: pragmas and pure functions, no I/O of their own.
const PLAIN_MODULES = /^-?(strict|warnings|utf8|open=?.*|List::Util(=[\w,]+)?|integer|bigint|bignum)$/;

interface PerlArgs {
  code: Field[];
  inPlace: boolean;
  suffix?: string;
  operands: Field[];
  problems: string[];
  version: boolean;
}

/**
 * perl's own switch parser (perl.c `moreswitches`): switches cluster (`-lane`, `-0777pe`), `-l` and `-0`
 * take only digits, `-i`, `-F`, `-C`, `-d`, `-D`, `-V`, `-x` take the rest of the word, `-e`/`-E`/`-I`/`-M`/`-m`
 * the rest of the word or the next one. The first word that is not a switch is the program file.
 */
function parsePerl(args: readonly Field[]): PerlArgs {
  const out: PerlArgs = { code: [], inPlace: false, operands: [], problems: [], version: false };
  let k = 0;
  for (; k < args.length; k++) {
    const f = args[k]!;
    const v = f.value;
    if (f.uncertain !== undefined || !v.startsWith('-') || v === '-') break;
    if (v === '--') {
      k++;
      break;
    }
    for (let j = 1; j < v.length; j++) {
      const c = v[j]!;
      const tail = v.slice(j + 1);
      if ('eEIMm'.includes(c)) {
        const value = tail !== '' ? { ...f, value: tail } : args[++k];
        if (!value) out.problems.push(`perl -${c} without a value`);
        else if (c === 'e' || c === 'E') out.code.push(value);
        else if (c === 'I') out.problems.push('perl -I adds a module directory');
        else if (value.uncertain !== undefined || !PLAIN_MODULES.test(value.value))
          out.problems.push(`perl -${c}${value.value} loads a module that runs code`);
        break;
      }
      if (c === 'l' || c === '0') {
        j += (c === 'l' ? /^[0-7]*/ : /^(?:[xX][0-9a-fA-F]+|[0-7]*)/).exec(tail)![0].length;
        continue;
      }
      if (c === 'i') {
        out.inPlace = true;
        if (tail !== '') out.suffix = tail;
        break;
      }
      if (c === 'F' || c === 'C') break;
      if (c === 'v' || c === 'V') out.version = true;
      if ('anpwWXtTfsc'.includes(c) || c === 'v' || c === 'V') continue;
      // -d (debugger), -D, -x, -S, -u, -U, -s… change what runs or where the program comes from.
      out.problems.push(`perl -${c} is not in its table`);
      break;
    }
  }
  out.operands = args.slice(k);
  return out;
}

/**
 * perl: `-e` code is analysed only as far as the plain one-liner shapes go (see perlCodeProblem); a program
 * file is read and runs with its operands passed on (like `python FILE`); `-i` rewrites the input files,
 * replacing a symlink rather than writing through it, with a backup if a suffix is given.
 */
const perl: CommandHandler = (cx) => {
  const p = parsePerl(cx.args);
  for (const why of p.problems) cx.uncertain(why, 'write');
  if (p.version && p.code.length === 0 && p.operands.length === 0) return;
  const inputs = p.operands;
  if (p.code.length === 0) {
    const [file, ...rest] = p.operands;
    if (!file || file.value === '-') {
      cx.uncertain('perl reads its program from stdin');
      return;
    }
    runsCode(cx, file, `perl ${file.raw}`);
    cx.unknownOperands(rest);
    return;
  }
  for (const c of p.code) {
    const why = c.uncertain ?? perlCodeProblem(c.value);
    if (why) cx.uncertain(`perl -e code is not a plain one-liner: ${why}`, 'write', c.raw);
  }
  for (const f of inputs) {
    if (f.value === '-' && f.glob === -1) continue;
    cx.read(f);
    if (!p.inPlace) continue;
    cx.write(f, { followFinal: false });
    if (p.suffix) {
      const backup = backupOf(f, p.suffix);
      if (backup) cx.write(backup, { tag: 'backup', followFinal: false });
      else cx.uncertain('the perl backup of a file we cannot name goes into another directory', 'write');
    }
  }
};

export const perlFamily: Record<string, CommandHandler> = { perl };
