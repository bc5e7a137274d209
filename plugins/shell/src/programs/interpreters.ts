import type { CommandHandler } from '../effects/extractTypes.js';
import { parseArgs } from './argv.js';

/**
 * bash/sh/zsh/dash/ksh: `-c SCRIPT` is parsed and analysed as nested code; `FILE` is read (what the file
 * does is not analysed — it is a program, like `python FILE`); no script at all reads commands from stdin.
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
    else cx.script(script.value, `${cx.name}-c`, { positional: rest.slice(1) });
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
  cx.unknownOperands(params);
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

/**
 * python/node/ruby…: the script file is read, inline code (`-c`, `-e`) and programs from stdin are not
 * analysed (uncertain), and later operands are passed to the program: path-like ones count as writes.
 */
function interpreter(inline: string, withArg: string, modules = '', version = '--version'): CommandHandler {
  return (cx) => {
    const p = parseArgs(cx.args, {
      short: inline + withArg + modules,
      long: [
        'eval',
        'print',
        'require',
        'import',
        'loader',
        'input-type',
        'experimental-loader',
        'env-file',
        'inspect-port',
      ],
      posix: true,
    });
    for (const o of p.opts) {
      if (inline.includes(o.name.slice(1)) || o.name === '--eval' || o.name === '--print') {
        cx.uncertain(
          `${cx.name} ${o.name} runs inline code that is not analysed`,
          'write',
          o.value?.raw ?? cx.name,
        );
        cx.unknownOperands(p.operands);
        return;
      }
      if (modules.includes(o.name.slice(1))) {
        cx.unknownOperands(p.operands);
        return;
      }
      if (o.name === '--require' || o.name === '-r' || o.name === '--import' || o.name === '--env-file') {
        if (o.value && (o.value.value.includes('/') || o.value.value.startsWith('.')))
          cx.read(o.value, { tag: 'module' });
      }
    }
    const [file, ...rest] = p.operands;
    // `node --version`, `python3 -V`: print and exit, no program runs.
    if (!file && p.opts.some((o) => o.name === '--version' || o.name === '--help' || o.name === version))
      return;
    if (!file || file.value === '-') {
      cx.uncertain(`${cx.name} reads its program from stdin`);
      return;
    }
    cx.read(file, { tag: 'script' });
    cx.unknownOperands(rest);
  };
}

// python and node have their own files (python.ts, node.ts) with complete option tables.
const bunLike = interpreter('ep', 'r', '', '-v');
const ruby = interpreter('e', 'IrCE');
const php = interpreter('rR', 'cdf');

export const interpreters: Record<string, CommandHandler> = {
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
  bun: bunLike,
  tsx: bunLike,
  'ts-node': bunLike,
  ruby,
  php,
  lua: interpreter('e', 'l'),
  Rscript: interpreter('e', ''),
};
