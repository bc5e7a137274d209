import type { CommandHandler } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';

// jq 1.6/1.7 (`jq --help`, jq manual): flags, options with one value, options with two.
const FLAGS = new Set(
  `-n -r -j -a -c -s -S -C -M -e -h -R -V -0 --tab --null-input --raw-output --join-output --ascii-output
   --compact-output --slurp --sort-keys --color-output --monochrome-output --exit-status --raw-input --version
   --help --seq --stream --stream-errors --unbuffered --raw-output0 --debug-dump-disasm --debug-trace
   --args --jsonargs`.split(/\s+/),
);
const SHORT_FLAGS = 'nrjacsSCMehRV0';
const ONE = new Set(['--indent', '-f', '--from-file', '-L']);
const TWO = new Set(['--arg', '--argjson', '--slurpfile', '--rawfile']);

/**
 * jq: the filter (first operand unless `-f FILE`) does no file I/O except `import`/`include` of modules
 * (from `-L` dirs, `~/.jq`, or beside the jq binary) — those are uncertain; `input_filename` and `$__loc__`
 * only name things. Operands are input files, or with `--args`/`--jsonargs` plain values. `--slurpfile`
 * and `--rawfile` read their file, `-f` reads the filter's file.
 */
const jq: CommandHandler = (cx) => {
  const args = cx.args;
  const operands: Field[] = [];
  // Operands after `--args`/`--jsonargs` are values ($ARGS.positional), not files; those before are files.
  const values = new Set<Field>();
  let filterFile: Field | undefined;
  let positionalValues = false;
  let done = false;
  for (let i = 0; i < args.length; i++) {
    const f = args[i]!;
    const v = f.value;
    if (done || f.uncertain !== undefined || !v.startsWith('-') || v === '-') {
      operands.push(f);
      if (positionalValues && operands.length > (filterFile ? 0 : 1)) values.add(f);
      continue;
    }
    if (v === '--') {
      done = true;
      continue;
    }
    if (v === '--args' || v === '--jsonargs') positionalValues = true;
    if (FLAGS.has(v) || (/^-[a-zA-Z0-9]+$/.test(v) && [...v.slice(1)].every((c) => SHORT_FLAGS.includes(c))))
      continue;
    const eq = v.indexOf('=');
    const name = v.startsWith('--') && eq !== -1 ? v.slice(0, eq) : v;
    if (ONE.has(name) || /^-L./.test(v)) {
      const value =
        eq !== -1 && v.startsWith('--')
          ? { ...f, value: v.slice(eq + 1) }
          : /^-L./.test(v)
            ? undefined
            : args[++i];
      if ((name === '-f' || name === '--from-file') && value) filterFile = value;
      continue;
    }
    if (TWO.has(name)) {
      const file = args[i + 2];
      i += 2;
      if ((name === '--slurpfile' || name === '--rawfile') && file) cx.read(file, { tag: name.slice(2) });
      continue;
    }
    cx.uncertain(`jq: option ${v} is not in its table`, 'write', v);
  }
  let filter: Field | undefined;
  let inputs = operands;
  if (filterFile) {
    cx.read(filterFile, { tag: 'from-file' });
    const c = cx.readContent(filterFile, 64 * 1024);
    if ('uncertain' in c)
      cx.uncertain(`the jq filter file cannot be analysed: ${c.uncertain}`, 'write', filterFile.raw);
    else filter = { value: c.text, raw: filterFile.raw, glob: -1, tilde: false };
  } else {
    [filter, ...inputs] = operands;
  }
  if (filter) {
    if (filter.uncertain !== undefined)
      cx.uncertain(`the jq filter is not known: ${filter.uncertain}`, 'write', filter.raw);
    else if (/(^|[^\w$])(import|include)\s*"/.test(filter.value))
      cx.uncertain('the jq filter imports modules we do not analyse', 'read', filter.raw);
  }
  for (const f of inputs) if (!values.has(f) && !(f.value === '-' && f.glob === -1)) cx.read(f);
};

export const jqFamily: Record<string, CommandHandler> = { jq };
