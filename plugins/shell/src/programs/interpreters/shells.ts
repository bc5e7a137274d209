import type { CommandHandler } from '../../effects/extractTypes.js';

/** Shells whose script files our parser reads as they do (zsh and ksh have syntax of their own). */
const ANALYSED_FILE = /^(bash|sh|dash|ash|posh)$/;

/**
 * bash/sh/zsh/dash/ksh: `-c SCRIPT` is parsed and analysed as nested code; `FILE` is read at check time and
 * analysed the same way, in a new shell with `$0` = FILE and `$1…` = the arguments (a script is shell text,
 * not an opaque program: `bash evil.sh` running `cat /etc/shadow` was allowed while the file was only
 * "read"); a file this line writes first, an unreadable or oversized one, or a zsh/ksh file is uncertain.
 * No script at all reads commands from stdin.
 */
const shellCmd: CommandHandler = (cx) => {
  const args = cx.args;
  let k = 0;
  let command = false;
  let stdin = false;
  for (; k < args.length; k++) {
    const v = args[k]!.value;
    if (args[k]!.uncertain !== undefined) break;
    if (v === '--' || v === '-') {
      k++;
      break;
    }
    if (v === '-o' || v === '+o' || v === '-O' || v === '+O' || v === '--init-file' || v === '--rcfile') {
      if (v === '--init-file' || v === '--rcfile') {
        const f = args[k + 1];
        if (f) cx.read(f, { tag: 'rcfile' });
      }
      k++;
      continue;
    }
    if (/^-[A-Za-z]+$/.test(v)) {
      if (v.includes('c')) command = true;
      if (v.includes('s')) stdin = true;
      continue;
    }
    if (/^--[a-z-]+$/.test(v) || /^\+[A-Za-z]+$/.test(v)) continue;
    break;
  }
  const rest = args.slice(k);
  if (command) {
    const script = rest[0];
    if (!script) cx.uncertain(`${cx.name} -c without a command`);
    else if (script.uncertain !== undefined || script.under)
      cx.uncertain(
        `the script of ${cx.name} -c is not known: ${script.uncertain ?? 'find substitutes paths into it'}`,
      );
    else
      cx.script(script.value, `${cx.name}-c`, {
        positional: rest.slice(1),
        posix: /^(sh|dash|ash|posh)$/.test(cx.name),
      });
    return;
  }
  if (!command && rest.length === 0 && args.some((f) => f.value === '--version' || f.value === '--help'))
    return;
  if (stdin || rest.length === 0) {
    cx.uncertain(`${cx.name} reads its commands from stdin`);
    return;
  }
  const [file, ...params] = rest;
  cx.read(file!, { tag: 'script' });
  if (!ANALYSED_FILE.test(cx.name)) {
    cx.uncertain(`what the ${cx.name} script ${file!.raw} runs is not analysed (${cx.name} syntax)`);
    return;
  }
  // bash looks for FILE in the cwd first and searches $PATH only when it is not there: a missing file is
  // uncertain below, so the search never decides what runs.
  const content = cx.readContent(file!);
  if ('uncertain' in content) {
    cx.uncertain(`what ${file!.raw} runs cannot be analysed: ${content.uncertain}`);
    return;
  }
  cx.script(content.text, `${cx.name}-file`, {
    positional: [file!, ...params],
    posix: /^(sh|dash|ash|posh)$/.test(cx.name),
  });
};

/** eval joins its arguments into a script. */
const evalCmd: CommandHandler = (cx) => {
  const bad = cx.args.find((f) => f.uncertain !== undefined || f.under);
  if (bad) cx.uncertain(`eval of a value that is not known: ${bad.uncertain ?? bad.raw}`);
  else cx.script(cx.args.map((f) => f.value).join(' '), 'eval', { sameShell: true });
};

/** source/. read their file; what it runs in this shell is unknown (it may also cd). */
const source: CommandHandler = (cx) => {
  const [file] = cx.args;
  if (file) cx.read(file, { tag: 'file' });
  cx.uncertain(`what the file given to ${cx.name} does is not analysed`);
  cx.chdir(null);
};

export const shells: Record<string, CommandHandler> = {
  bash: shellCmd,
  sh: shellCmd,
  zsh: shellCmd,
  dash: shellCmd,
  ksh: shellCmd,
  mksh: shellCmd,
  ash: shellCmd,
  eval: evalCmd,
  source,
  '.': source,
};
