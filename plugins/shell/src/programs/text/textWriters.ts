import type { CommandHandler } from '../../effects/extractTypes.js';
import { has, parseArgs, values } from '../argv.js';
import { fileCommand } from '../fileCommand.js';
import { emitOptions, literal, simple, unknownOptions } from '../spec.js';
import * as T from './textOptions.js';
import * as W from './textWriterOptions.js';
import { xxd } from './xxd.js';

/** sort: operands read, `-o` written, `-T` a directory written; `--compress-program` runs a program. */
const sort: CommandHandler = (cx) => {
  fileCommand({
    ...W.SORT,
    pathOpts: {
      '-o': 'write',
      '--output': 'write',
      '-T': 'write',
      '--temporary-directory': 'write',
      '--files0-from': 'read',
      '--random-source': 'read',
    },
  })(cx);
  if (has(parseArgs(cx.args, W.SORT), '--compress-program'))
    cx.uncertain('sort --compress-program runs a program we do not analyse');
};

/** shuf: `-e` shuffles its operands as strings, `-i` a range: then no operand is a file. */
const shuf: CommandHandler = (cx) => {
  const strings = has(parseArgs(cx.args, W.SHUF), '-e', '--echo', '-i', '--input-range');
  fileCommand({
    ...W.SHUF,
    operands: strings ? 'none' : 'read',
    pathOpts: { '-o': 'write', '--output': 'write', '--random-source': 'read' },
  })(cx);
};

/** `split`/`csplit`: input read, output files are `PREFIX` + a suffix: judge the prefix's directory. */
const split: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, W.SPLIT);
  emitOptions(cx, p, {});
  if (has(p, '--filter')) cx.uncertain('split --filter runs a shell command on every chunk');
  const [input, prefix] = p.operands;
  if (input) cx.read(input);
  const out = prefix ?? literal('x');
  cx.write({ ...out, value: `${out.value}*`, glob: out.value.length }, { tag: 'prefix' });
};

const csplit: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, W.CSPLIT);
  unknownOptions(cx, p);
  const [input] = p.operands;
  if (input) cx.read(input);
  const prefix = values(p, '-f', '--prefix')[0] ?? literal('xx');
  cx.write({ ...prefix, value: `${prefix.value}*`, glob: prefix.value.length }, { tag: 'prefix' });
};

/** Text tools whose output goes to files they name: `sort -o`, `split`, `tee`, `iconv -o`. */
export const textWriters: Record<string, CommandHandler> = {
  tee: fileCommand({ ...W.TEE, operands: 'write' }),
  sponge: simple({ operands: 'write' }),
  dos2unix: simple({ operands: 'write' }),
  unix2dos: simple({ operands: 'write' }),
  sort: sort,
  shuf: shuf,
  uniq: (cx) => {
    const p = parseArgs(cx.args, W.UNIQ);
    unknownOptions(cx, p);
    const [input, output] = p.operands;
    if (input) cx.read(input);
    if (output) cx.write(output);
  },
  xxd,
  iconv: fileCommand({ ...T.ICONV, pathOpts: { '-o': 'write', '--output': 'write' } }),
  split,
  csplit,
};
