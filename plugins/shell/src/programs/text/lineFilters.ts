import type { Field } from '../../state/expandWord.js';

/**
 * Programs that, reading only stdin, print a subset of its lines unchanged (reordered at most): between
 * `find … |` and `| xargs …` they pass the paths on (`find . -name '*.ts' | grep -v test | xargs wc -l`).
 * Only the options listed keep lines whole; anything else (`grep -o`, `-n`, `-c`, context lines, `head -c`,
 * `sort -o`, a file operand) prints something that is not those paths.
 */
const SORT_SHORT = /^-[rufnVhbdsRgM]+$/;
const SORT_LONG = new Set([
  '--reverse',
  '--unique',
  '--ignore-case',
  '--numeric-sort',
  '--version-sort',
  '--human-numeric-sort',
  '--dictionary-order',
  '--ignore-leading-blanks',
  '--stable',
  '--random-sort',
  '--general-numeric-sort',
  '--month-sort',
]);
const GREP_SHORT = /^-[vEFGPiwxsq]*[vEFGPiwx][vEFGPiwxs]*$/;
const GREP_LONG = new Set([
  '--invert-match',
  '--extended-regexp',
  '--fixed-strings',
  '--basic-regexp',
  '--perl-regexp',
  '--ignore-case',
  '--word-regexp',
  '--line-regexp',
  '--no-messages',
]);
const COUNT = /^\+?\d+$/;

export function keepsLines(argv: readonly Field[]): boolean {
  if (argv.some((f) => f.uncertain !== undefined || f.under || f.pipe)) return false;
  const [head, ...args] = argv.map((f) => f.value);
  switch (head) {
    case 'sort':
      return args.every((a) => SORT_SHORT.test(a) || SORT_LONG.has(a));
    case 'uniq':
      return args.every(
        (a) => a === '-u' || a === '-d' || a === '-i' || a === '--unique' || a === '--repeated',
      );
    case 'grep':
    case 'egrep':
    case 'fgrep': {
      let pattern = false;
      for (let k = 0; k < args.length; k++) {
        const a = args[k]!;
        if (a === '-e' || a === '--regexp') {
          if (args[++k] === undefined) return false;
          pattern = true;
        } else if (a.startsWith('--regexp=') || (a.startsWith('-e') && a.length > 2)) pattern = true;
        else if (a === '--') {
          // One pattern may follow, nothing else (a second word is a file).
          return !pattern && args.length === k + 2;
        } else if (GREP_SHORT.test(a) || GREP_LONG.has(a)) continue;
        else if (a.startsWith('-')) return false;
        else if (pattern) return false;
        else pattern = true;
      }
      return pattern;
    }
    case 'head':
    case 'tail': {
      for (let k = 0; k < args.length; k++) {
        const a = args[k]!;
        if (a === '-n' || a === '--lines') {
          if (!COUNT.test(args[++k] ?? '')) return false;
        } else if (!(/^-n?\+?\d+$/.test(a) || /^--lines=\+?\d+$/.test(a))) return false;
      }
      return true;
    }
    default:
      return false;
  }
}
