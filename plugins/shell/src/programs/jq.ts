import type { CommandHandler } from '../effects/extractTypes.js';
import type { Field } from '../state/expandWord.js';

// jq 1.6 (`jq --help`, jq(1)) parses its own options: `--arg NAME VALUE` and friends take two words, and the
// files named by `--slurpfile`/`--rawfile`/`--argfile` are read — the old one-argument table skipped the file
// (`jq --rawfile a /etc/shadow -n '$a'` read a denied file unseen).

/** Options taking two words: NAME, then a value (`arg`, `argjson`) or a file read (the others). */
const TWO: Readonly<Record<string, 'value' | 'file'>> = {
  '--arg': 'value',
  '--argjson': 'value',
  '--slurpfile': 'file',
  '--rawfile': 'file',
  '--argfile': 'file',
};
/** Options taking one word. */
const ONE: Readonly<Record<string, 'value' | 'file' | 'dir'>> = {
  '--indent': 'value',
  '-f': 'file',
  '--from-file': 'file',
  '-L': 'dir',
};
const FLAGS = new Set([
  '--tab',
  '--seq',
  '--stream',
  '--stream-errors',
  '--unbuffered',
  '--ascii-output',
  '--join-output',
  '--raw-output',
  '--raw-input',
  '--null-input',
  '--compact-output',
  '--slurp',
  '--exit-status',
  '--sort-keys',
  '--color-output',
  '--monochrome-output',
  '--help',
  '--version',
]);
const SHORT_FLAGS = 'cnesrajRCMShV';

/**
 * jq [OPTIONS] FILTER [FILES…]: the files are read; with `-f FILE` the filter comes from FILE and every
 * positional word is an input file; after `--args`/`--jsonargs` positional words are values. A filter that
 * `import`s or `include`s a module reads files from the module path: uncertain.
 */
export const jq: CommandHandler = (cx) => {
  const args = cx.args;
  let filterFromFile = false;
  let filter: Field | undefined;
  let positionalAreValues = false;
  const inputs: Field[] = [];
  for (let i = 0; i < args.length; i++) {
    const f = args[i]!;
    const v = f.value;
    if (f.uncertain !== undefined || !v.startsWith('-') || v === '-') {
      if (!filterFromFile && filter === undefined) filter = f;
      else if (!positionalAreValues) inputs.push(f);
      continue;
    }
    if (v === '--') {
      for (const rest of args.slice(i + 1)) {
        if (!filterFromFile && filter === undefined) filter = rest;
        else if (!positionalAreValues) inputs.push(rest);
      }
      break;
    }
    if (v === '--args' || v === '--jsonargs') {
      positionalAreValues = true;
      continue;
    }
    const two = TWO[v];
    if (two) {
      const value = args[i + 2];
      i += 2;
      if (two === 'file' && value) cx.read(value, { tag: v.slice(2) });
      else if (!value) cx.uncertain(`jq ${v} without its two arguments`, 'read');
      continue;
    }
    const attachedL = /^-L(.+)$/.exec(v);
    const one = attachedL ? 'dir' : ONE[v];
    if (one) {
      const value = attachedL ? { ...f, value: attachedL[1]!, glob: -1 } : args[++i];
      if (!value) continue;
      if (one === 'file') {
        cx.read(value, { tag: 'from-file' });
        filterFromFile = true;
      } else if (one === 'dir') cx.read(value, { scope: 'subtree', tag: 'library-path' });
      continue;
    }
    if (FLAGS.has(v)) continue;
    if (/^-[A-Za-z]+$/.test(v) && [...v.slice(1)].every((c) => SHORT_FLAGS.includes(c))) continue;
    cx.uncertain(`jq: option ${v} is not in its table`, 'write', v);
  }
  if (filterFromFile && filter !== undefined) inputs.unshift(filter);
  if (!filterFromFile && filter && /\b(import|include)\b/.test(filter.value))
    cx.uncertain('jq: the filter imports a module from its search path', 'read');
  for (const f of inputs) cx.read(f);
};
