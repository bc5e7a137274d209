import type { CommandHandler } from '../effects/extractTypes.js';
import { has, parseArgs, values } from './argv.js';
import { emitOptions } from './spec.js';

// sed's `w FILE`, `r FILE`, `e CMD` commands and the `w`/`e` flags of `s///` reach files and programs from
// inside the script. We do not parse sed scripts fully, so a script that may use them is uncertain.
const SED_FILE_CMD = /(^|[;\n{}!0-9$/])\s*[wWrRe](\s|$)|(^|[;\n{}])\s*s(.).*\4.*\4[gpIiMm0-9]*[we]/;

/** sed: the first operand is the script (unless `-e`/`-f`); `-i`/`--in-place` writes the files. */
const sed: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, {
    short: 'efl',
    long: ['expression', 'file', 'line-length'],
    optionalShort: 'i',
    flags: ['in-place', 'regexp-extended', 'quiet', 'silent', 'null-data', 'separate', 'sandbox'],
  });
  // `--in-place=SUFFIX` arrives as a stray (an option with a value we did not declare): it is the backup suffix.
  const inPlace = has(p, '-i', '--in-place') || cx.args.some((f) => f.value.startsWith('--in-place='));
  emitOptions(cx, { ...p, strays: [] }, { '-f': 'read', '--file': 'read' });
  const scripts = values(p, '-e', '--expression');
  const fromOption = scripts.length > 0 || has(p, '-f', '--file');
  const operands = fromOption ? p.operands : p.operands.slice(1);
  if (!fromOption && p.operands[0]) scripts.push(p.operands[0]);
  if (!has(p, '--sandbox')) {
    for (const s of scripts) {
      if (s.uncertain !== undefined || SED_FILE_CMD.test(s.value))
        cx.uncertain('the sed script reads, writes or runs something', 'write', s.raw);
    }
  }
  for (const f of operands) {
    if (inPlace) cx.write(f);
    else cx.read(f);
  }
};

// awk programs can redirect output (`print > "f"`), run commands (`system`, `|`) and read files (`getline`).
const AWK_SIDE =
  /\bsystem\s*\(|\bgetline\b|\bprintf?\b[^;}\n]*[>|]|\|&|\bclose\s*\(|\bfflush\b|@load|@include/;

/** awk: program first (unless `-f`); `-i inplace` (gawk) writes the files. */
const awk: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, {
    short: 'fvFiEle',
    long: ['file', 'assign', 'field-separator', 'include', 'exec', 'load', 'source'],
  });
  emitOptions(cx, p, { '-f': 'read', '--file': 'read', '-E': 'read', '--exec': 'read', '--include': 'read' });
  const inPlace = values(p, '-i', '--include').some((f) => f.value === 'inplace');
  const fromFile = has(p, '-f', '--file', '-E', '--exec');
  const program = fromFile ? undefined : p.operands[0];
  const sources = values(p, '-e', '--source');
  if (fromFile) cx.uncertain('the awk program comes from a file we do not analyse', 'write');
  for (const prog of program ? [program, ...sources] : sources) {
    if (prog.uncertain !== undefined || AWK_SIDE.test(prog.value))
      cx.uncertain('the awk program writes, reads or runs something', 'write', prog.raw);
  }
  for (const f of fromFile ? p.operands : p.operands.slice(1)) {
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(f.value)) continue;
    if (inPlace) cx.write(f);
    else cx.read(f);
  }
};

// A perl one-liner we accept without running it: a single substitution or transliteration.
const PERL_SIMPLE = /^\s*(?:s|tr|y)([^\w\s])(?:(?!\1).)*\1(?:(?!\1).)*\1[a-z]*\s*;?\s*$/s;

/** perl: `-e CODE` is uncertain unless a plain `s///`; `-i` edits the files in place. */
const perl: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, { short: 'eEIlmMx0', optionalShort: 'i' });
  emitOptions(cx, p, { '-I': 'read' });
  const code = values(p, '-e', '-E');
  let operands = p.operands;
  if (code.length === 0) {
    const [file, ...rest] = operands;
    if (file) cx.read(file, { tag: 'script' });
    else cx.uncertain('perl reads its program from stdin');
    if (file) cx.uncertain('what the perl script does is not analysed');
    operands = rest;
  }
  for (const c of code) {
    if (c.uncertain !== undefined || !PERL_SIMPLE.test(c.value))
      cx.uncertain('perl -e code is not analysed', 'write', c.raw);
  }
  const inPlace = has(p, '-i');
  for (const f of operands) {
    if (inPlace) cx.write(f);
    else cx.read(f);
  }
};

export const editors: Record<string, CommandHandler> = {
  sed,
  gsed: sed,
  awk,
  gawk: awk,
  mawk: awk,
  nawk: awk,
  perl,
};
