import type { CommandHandler } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';

// xxd (vim 9.0, `xxd -h`) reads options by their first letter after `-` and takes any longer spelling
// (`-len`, `-cols`, `-ps`, even `-lenx`): checked on this machine. Letters with a value take it attached when
// the rest is a number (`-c8`, `-s+16`), else from the next word (`-len 2`, `-c 8`).

const VALUE = 'cglnosR';
const FLAG = 'abCdEehiprRuv';

/** xxd [OPTIONS] [INFILE [OUTFILE]]: INFILE is read, OUTFILE written (patched in place with `-r`). */
export const xxd: CommandHandler = (cx) => {
  const operands: Field[] = [];
  const args = cx.args;
  for (let i = 0; i < args.length; i++) {
    const f = args[i]!;
    const v = f.value;
    if (f.uncertain !== undefined || !v.startsWith('-') || v === '-') {
      operands.push(f);
      continue;
    }
    const letter = v[1]!;
    if (VALUE.includes(letter)) {
      if (/^[-+]?\d/.test(v.slice(2))) continue;
      const value = args[++i];
      // `-n NAME` is a C identifier; anything that looks like a path was maybe meant as the input file.
      if (value && /[/.~]/.test(value.value)) cx.read(value, { tag: 'value' });
      continue;
    }
    if (!FLAG.includes(letter)) cx.uncertain(`xxd: option ${v} is not in its table`, 'write', v);
  }
  const [input, output] = operands;
  if (input && input.value !== '-') cx.read(input);
  if (output && output.value !== '-') cx.write(output);
  if (operands.length > 2) cx.uncertain('xxd takes at most two files', 'write');
};
