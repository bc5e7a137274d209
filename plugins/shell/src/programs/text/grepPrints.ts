import type { CommandContext, CommandHandler } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import type { Opt } from '../argv.js';
import { literal } from '../spec.js';
import { grepFilter } from './grepFilter.js';

/** grep's options that take a value (grep --help, GNU grep 3.8), short and long. */
const SHORT_VALUE = 'efmABCdD';
const LONG_VALUE = new Set([
  'regexp',
  'file',
  'max-count',
  'after-context',
  'before-context',
  'context',
  'directories',
  'devices',
  'include',
  'exclude',
  'exclude-dir',
  'exclude-from',
  'label',
  'binary-files',
]);

/**
 * `grep -rl PATTERN [PATH…]` prints the names of files beneath the paths (`.` when none), one a line or
 * NUL-terminated with `-Z`: a pipe's next command may take them (`grep -rl TODO . | xargs sed -i …`).
 * Which files match is not known here, so the set is every file beneath the paths that grep searches
 * (`--include`/`--exclude`/`--exclude-dir` as its walk filters them) — more than grep prints, never less. Only with `-l`/`-L` (names only) and a recursive search; any word we cannot read: nothing.
 */
function printedNames(cx: CommandContext): void {
  let recursive = false;
  let names = false;
  let nul = false;
  let patternGiven = false;
  let endOfOptions = false;
  const operands: Field[] = [];
  // --include/--exclude/--exclude-dir: grep skips those files, so they are not among the names either.
  const globs: Opt[] = [];
  const args = cx.args;
  for (let i = 0; i < args.length; i++) {
    const f = args[i]!;
    if (f.uncertain !== undefined) return;
    const v = f.value;
    if (endOfOptions || !v.startsWith('-') || v === '-') {
      operands.push(f);
      continue;
    }
    if (v === '--') {
      endOfOptions = true;
      continue;
    }
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const name = v.slice(2, eq === -1 ? undefined : eq);
      const value = eq === -1 ? args[i + 1]?.value : v.slice(eq + 1);
      if (name === 'recursive' || name === 'dereference-recursive') recursive = true;
      if (name === 'directories' && value === 'recurse') recursive = true;
      if (name === 'files-with-matches' || name === 'files-without-match') names = true;
      if (name === 'null') nul = true;
      if (name === 'regexp' || name === 'file') patternGiven = true;
      if ((name === 'include' || name === 'exclude' || name === 'exclude-dir') && value !== undefined)
        globs.push({
          name: `--${name}`,
          value: eq === -1 ? args[i + 1]! : { ...f, value, raw: value, glob: -1 },
        });
      if (eq === -1 && LONG_VALUE.has(name)) i++;
      continue;
    }
    for (let k = 1; k < v.length; k++) {
      const c = v[k]!;
      if (SHORT_VALUE.includes(c)) {
        const attached = v.slice(k + 1);
        const value = attached !== '' ? attached : args[++i]?.value;
        if (c === 'e' || c === 'f') patternGiven = true;
        if (c === 'd' && value === 'recurse') recursive = true;
        break;
      }
      if (c === 'r' || c === 'R') recursive = true;
      if (c === 'l' || c === 'L') names = true;
      if (c === 'Z') nul = true;
    }
  }
  if (!recursive || !names) return;
  const given = patternGiven ? operands : operands.slice(1);
  const roots = given.length > 0 ? given : [literal('.')];
  if (roots.some((r) => r.glob >= 0 || r.under || r.pipe || r.value === '-' || r.value === '')) return;
  const filter = grepFilter(globs);
  cx.printsPaths({ roots, filters: roots.map(() => filter), nul });
}

/** A grep handler that also says what `grep -rl` prints for a pipe. */
export function grepPrints(handler: CommandHandler): CommandHandler {
  return (cx) => {
    handler(cx);
    printedNames(cx);
  };
}
