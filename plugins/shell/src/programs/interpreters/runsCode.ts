import type { CommandContext } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';

/**
 * Invariant 6 (prove or sandbox): the program runs code whose text is not analysed — a script file, a
 * module, test files, a package's bin. The file is read (the policy judges that as any read), and the call is
 * uncertain whatever the file is: with `sandbox: uncertain` it runs in the OS sandbox, else it is denied or
 * prompted. The reason names the file, so the model and the user see what was not analysed.
 *
 * @example
 * runsCode(cx, file, `${cx.name} ${file.raw}`); // "python3 x.py runs x.py, code that is not analysed"
 */
export function runsCode(cx: CommandContext, file: Field | undefined, what: string): void {
  if (file) cx.read(file, { tag: 'script' });
  const runs = file ? `runs ${file.raw}, code` : 'runs code';
  cx.uncertain(`${what} ${runs} that is not analysed`, 'write', file?.raw ?? cx.name);
}
