import type { CommandContext, CommandHandler } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { runsCode } from './runsCode.js';

/**
 * How one interpreter reads its switches (from its man page: ruby(1), php(1), lua(1), Rscript --help).
 * `code`: switches whose value is program text; `value`: switches taking a value (attached or next word);
 * `attached`: switches whose optional value must be attached (`-i.bak`, `-W2`); `flags`: the rest it
 * accepts. Long options are listed whole. Anything else is uncertain.
 */
interface Runner {
  code: string;
  value: string;
  attached: string;
  flags: string;
  longFlags: readonly string[];
  longValue: readonly string[];
  /** Switches that load code from elsewhere (`ruby -r`, `lua -l`, `php -z`) or start a REPL/server. */
  unsafe: string;
  longUnsafe?: readonly string[];
  /**
   * The switch that loads a library before the program (`ruby -rjson`, `lua -l socket`): like node's
   * `--require`, a path is read, a library name comes from the interpreter's own path (code like the program).
   */
  library?: string;
  /** The switch that names the program file (`php -f FILE`). */
  fileOpt?: string;
  /** Why a switch's value makes the call uncertain (`php -d auto_prepend_file=…`), if it does. */
  valueProblem?: (c: string, value: string) => string | undefined;
}

// php.ini settings `-d` may change without loading code or files (php.ini directives list).
const PHP_INI_HARMLESS =
  /^(memory_limit|display_errors|display_startup_errors|error_reporting|log_errors|html_errors|date\.timezone|max_execution_time|short_open_tag|precision|serialize_precision|default_charset|xdebug\.mode|assert\.active|zend\.assertions|opcache\.enable(_cli)?|output_buffering|implicit_flush)(=.*)?$/;

const RUBY: Runner = {
  code: 'e',
  value: 'CIr',
  attached: '0EFiWx',
  flags: 'acdhlnpsvwyU',
  longFlags: [
    '--version',
    '--help',
    '--copyright',
    '--verbose',
    '--yjit',
    '--jit',
    '--disable-gems',
    '--disable=gems',
  ],
  longValue: ['--external-encoding', '--internal-encoding', '--encoding', '--enable', '--disable', '--dump'],
  unsafe: 'SxC',
  library: 'r',
};
const PHP: Runner = {
  code: 'rBRFE',
  value: 'dft',
  attached: '',
  flags: 'hilmnsvwHq',
  longFlags: ['--version', '--help', '--ini', '--no-php-ini', '--syntax-check'],
  longValue: ['--rf', '--rc', '--re', '--rz', '--ri', '--define', '--php-ini', '--file', '--zend-extension'],
  unsafe: 'aSzFc',
  longUnsafe: ['--zend-extension', '--php-ini', '--define'],
  fileOpt: 'f',
  valueProblem: (c, value) =>
    c === 'd' && !PHP_INI_HARMLESS.test(value)
      ? `php -d ${value} may load code (auto_prepend_file, extension…)`
      : undefined,
};
const LUA: Runner = {
  code: 'e',
  value: 'l',
  attached: '',
  flags: 'vEW',
  longFlags: [],
  longValue: [],
  unsafe: 'i',
  // `require` turns dots into directory separators: a path-like name reaches files we would misname.
  valueProblem: (c, value) =>
    c === 'l' && /[/~]|^\./.test(value) ? `lua -l ${value} loads a local file` : undefined,
};

function runner(spec: Runner): CommandHandler {
  return (cx) => {
    const args = cx.args;
    let i = 0;
    let inPlace = false;
    let version = false;
    let fromOpt: Field | undefined;
    for (; i < args.length; i++) {
      const f = args[i]!;
      const v = f.value;
      if (f.uncertain !== undefined || !v.startsWith('-') || v === '-') break;
      if (v === '--') {
        i++;
        break;
      }
      if (v.startsWith('--')) {
        const name = v.split('=')[0]!;
        if (spec.longUnsafe?.includes(name)) return unsure(cx, `${cx.name} ${name} loads code`);
        if (name === '--version' || name === '--help') version = true;
        if (spec.longFlags.includes(v)) continue;
        if (spec.longValue.includes(name)) {
          if (!v.includes('=')) i++;
          if (name === '--file' || name === '--rf') return unsure(cx, `${cx.name} ${name} is not analysed`);
          continue;
        }
        return unsure(cx, `${cx.name}: option ${v} is not in its table`);
      }
      for (let j = 1; j < v.length; j++) {
        const c = v[j]!;
        if (spec.code.includes(c))
          return unsure(cx, `${cx.name} -${c} runs inline code that is not analysed`);
        if (spec.unsafe.includes(c))
          return unsure(cx, `${cx.name} -${c} loads code or reads commands we do not see`);
        if (spec.value.includes(c)) {
          const value = j + 1 < v.length ? { ...f, value: v.slice(j + 1) } : args[++i];
          if (c === spec.fileOpt) fromOpt = value;
          // A library loaded before the program is code too (`ruby -r./x`, `-rjson` from the load path).
          if (c === spec.library && value)
            runsCode(cx, /^[./~]/.test(value.value) ? value : undefined, `${cx.name} -${c}${value.raw}`);
          const problem = value && spec.valueProblem?.(c, value.value);
          if (problem) return unsure(cx, problem);
          break;
        }
        if (spec.attached.includes(c)) {
          if (c === 'i') inPlace = true;
          break;
        }
        if (c === 'v' || c === 'h') version = true;
        if (!spec.flags.includes(c)) return unsure(cx, `${cx.name}: option -${c} is not in its table`);
      }
    }
    const operands = args.slice(i);
    const [file, ...rest] = fromOpt ? [fromOpt, ...operands] : operands;
    if (!file && version) return;
    if (!file || file.value === '-') return unsure(cx, `${cx.name} reads its program from stdin`);
    // `ruby -i` edits the operand files in place: the program file is the first operand.
    runsCode(cx, file, `${cx.name} ${file.raw}`);
    if (inPlace) for (const f of rest) cx.write(f, { followFinal: false });
    else cx.unknownOperands(rest);
  };
}

function unsure(cx: CommandContext, why: string): void {
  cx.uncertain(why, 'write');
}

/** Rscript [options] FILE [args] / Rscript -e EXPR: options are R's `--name[=value]` switches. */
const rscript: CommandHandler = (cx) => {
  const args: readonly Field[] = cx.args;
  let i = 0;
  for (; i < args.length; i++) {
    const v = args[i]!.value;
    if (args[i]!.uncertain !== undefined || !v.startsWith('-')) break;
    if (v === '-e') return unsure(cx, 'Rscript -e runs inline code that is not analysed');
    if (v === '--version' || v === '--help') return;
    // --vanilla, --no-environ, --default-packages=…, --verbose: settings of the R session.
    if (
      !/^--(vanilla|verbose|no-environ|no-site-file|no-init-file|no-restore|no-save|save|restore|default-packages=[\w,]*|encoding=[\w-]+)$/.test(
        v,
      )
    )
      return unsure(cx, `Rscript: option ${v} is not in its table`);
  }
  const [file, ...rest] = args.slice(i);
  if (!file || file.value === '-') return unsure(cx, 'Rscript reads its program from stdin');
  runsCode(cx, file, `Rscript ${file.raw}`);
  cx.unknownOperands(rest);
};

export const scriptRunners: Record<string, CommandHandler> = {
  ruby: runner(RUBY),
  php: runner(PHP),
  lua: runner(LUA),
  Rscript: rscript,
};
