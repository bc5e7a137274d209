import type { CommandContext, CommandHandler } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';

// test / [ / [[: string and integer comparisons touch no path; file operators stat their operand (a `list`:
// metadata, never contents — `-r`/`-w`/`-x` are access(2), also metadata). Checked against bash's
// `help test`.
const FILE_UNARY = new Set([
  '-a',
  '-b',
  '-c',
  '-d',
  '-e',
  '-f',
  '-g',
  '-h',
  '-k',
  '-p',
  '-r',
  '-s',
  '-u',
  '-w',
  '-x',
  '-G',
  '-L',
  '-N',
  '-O',
  '-S',
]);
/** Unary operators whose operand is a string, an fd, an option or a variable name: no path. */
const OTHER_UNARY = new Set(['-z', '-n', '-t', '-o', '-v', '-R']);
const FILE_BINARY = new Set(['-nt', '-ot', '-ef']);
const BINARY = new Set([
  '=',
  '==',
  '!=',
  '<',
  '>',
  '=~',
  '-eq',
  '-ne',
  '-lt',
  '-le',
  '-gt',
  '-ge',
  ...FILE_BINARY,
]);

function stat(cx: CommandContext, f: Field): void {
  cx.emit(f, 'list', { tag: 'test' });
}

/** An operand whose unquoted expansion is unknown may split into more words and change the expression. */
function splitsUnknown(f: Field, bracket: boolean): boolean {
  return !bracket && f.uncertain !== undefined && !/^"[^"]*"$/.test(f.raw);
}

/** test EXPR, [ EXPR ], [[ EXPR ]]: only file operators touch a path, as metadata. */
export const testBuiltin: CommandHandler = (cx) => {
  const bracket = cx.name === '[[';
  let args = cx.args;
  const close = cx.name === '[' ? ']' : bracket ? ']]' : undefined;
  if (close && args[args.length - 1]?.value === close) args = args.slice(0, -1);
  if (args.some((f) => splitsUnknown(f, bracket))) {
    cx.uncertain(
      `an unquoted value that is not known may turn ${cx.name}'s operands into file tests`,
      'list',
    );
    return;
  }
  // One operand: a non-empty string test, whatever it looks like (`[ -f ]` is true).
  if (args.length <= 1) return;
  for (let k = 0; k < args.length; ) {
    const f = args[k]!;
    const next = args[k + 1];
    const op = next?.uncertain === undefined ? next?.value : undefined;
    if (op !== undefined && BINARY.has(op) && args[k + 2] !== undefined) {
      if (FILE_BINARY.has(op)) {
        stat(cx, f);
        stat(cx, args[k + 2]!);
      }
      k += 3;
      continue;
    }
    if (f.uncertain === undefined && FILE_UNARY.has(f.value) && next !== undefined) {
      stat(cx, next);
      k += 2;
      continue;
    }
    if (f.uncertain === undefined && OTHER_UNARY.has(f.value) && next !== undefined) {
      k += 2;
      continue;
    }
    // `!`, `(`, `)`, `-a`/`-o` between expressions, `&&`/`||` in [[, or a lone string.
    k++;
  }
};
