import type { CommandContext, CommandHandler } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { literal } from '../spec.js';
import { runsCode } from './runsCode.js';

// CPython 3.11 `python3 --help`: flags, and options with a value (attached or next word).
const FLAGS = 'bBdEhiIOPqsSuvVx';
const WITH_VALUE = 'cmWX';
const LONG = new Set(['--version', '--help', '--help-env', '--help-xoptions', '--help-all']);

// Modules that run the workspace's own code (pytest's conftest.py and test files, unittest's tests, setup.py
// under build, tox/nox sessions) or load plugins its configuration names (pylint's init-hook and
// load-plugins, mypy's plugins): code that is not analysed, like `python FILE`.
const CODE_MODULES = new Set('pytest unittest build coverage doctest tox nox pylint mypy'.split(' '));
// Linters that only read the files they check (their configuration holds no code): operands as an unknown
// program's.
const LINT_MODULES = new Set('black ruff flake8 isort pyflakes pycodestyle'.split(' '));

function module(cx: CommandContext, mod: Field, rest: readonly Field[]): void {
  const name = mod.value;
  if (mod.uncertain !== undefined) cx.uncertain(`python -m of a module that is not known: ${mod.uncertain}`);
  else if (name === 'pip' || name === 'pip3') cx.exec([literal('pip'), ...rest]);
  else if (name === 'venv' || name === 'virtualenv') {
    // `python -m venv [--options] DIR…`: every non-option operand is an environment directory written.
    rest.forEach((f, k) => {
      if (f.value.startsWith('-') || rest[k - 1]?.value === '--prompt') return;
      cx.write(f, { scope: 'subtree', tag: 'venv' });
    });
  } else if (name === 'http.server' && rest.some((f) => f.value === '--cgi')) {
    cx.uncertain('python -m http.server --cgi runs the scripts of cgi-bin for whoever connects');
  } else if (name === 'http.server') {
    // Serves every file under the directory (following links) to whoever connects: a read of the subtree.
    const k = rest.findIndex((f) => f.value === '-d' || f.value === '--directory');
    const eq = rest.find((f) => f.value.startsWith('--directory='));
    const dir = k !== -1 ? rest[k + 1] : eq ? { ...eq, value: eq.value.slice(12) } : undefined;
    cx.read(dir ?? literal('.'), { scope: 'subtree', followLinks: true, tag: 'http.server' });
  } else if (name === 'json.tool') {
    const ops = rest.filter((f) => !f.value.startsWith('-'));
    if (ops[0] && ops[0].value !== '-') cx.read(ops[0], { tag: 'json.tool' });
    if (ops[1] && ops[1].value !== '-') cx.write(ops[1], { tag: 'json.tool' });
  } else if (CODE_MODULES.has(name.split('.')[0]!)) {
    runsCode(cx, undefined, `python -m ${name}`);
    cx.unknownOperands(rest);
  } else if (LINT_MODULES.has(name.split('.')[0]!)) cx.unknownOperands(rest);
  // pdb, code, runpy, cProfile, timeit… run code we cannot see, or read it from stdin.
  else cx.uncertain(`python -m ${name} runs code that is not analysed`);
}

/**
 * python/python3/pypy: `-c` code and programs from stdin or a REPL (`-i`) are uncertain; `-m` is looked up
 * (pip is pip, venv writes its directory, http.server reads what it serves, test and lint tools run the
 * workspace's code like `python FILE`); `python FILE` reads FILE and passes its operands on. A script is
 * a program from the workspace: the policy judges the file; what it does is not analysed (README, Limits).
 */
const python: CommandHandler = (cx) => {
  const args = cx.args;
  let i = 0;
  for (; i < args.length; i++) {
    const f = args[i]!;
    const v = f.value;
    if (f.uncertain !== undefined || !v.startsWith('-') || v === '-') break;
    if (v === '--') {
      i++;
      break;
    }
    if (LONG.has(v)) {
      if (v !== '--version' && v !== '--help') continue;
      return;
    }
    if (v.startsWith('--check-hash-based-pycs')) {
      if (!v.includes('=')) i++;
      continue;
    }
    for (let j = 1; j < v.length; j++) {
      const c = v[j]!;
      if (WITH_VALUE.includes(c)) {
        const value = j + 1 < v.length ? { ...f, value: v.slice(j + 1) } : args[++i];
        const rest = args.slice(i + 1);
        if (c === 'c') {
          cx.uncertain(`${cx.name} -c runs inline code that is not analysed`, 'write', value?.raw ?? cx.name);
          return;
        }
        if (c === 'm') {
          if (value) module(cx, value, rest);
          else cx.uncertain(`${cx.name} -m without a module`);
          return;
        }
        break;
      }
      if (c === 'V' || c === 'h') {
        if (args.slice(i + 1).every((a) => a.value.startsWith('-'))) return;
      }
      if (c === 'i') {
        cx.uncertain(`${cx.name} -i starts a REPL that reads stdin`);
        return;
      }
      if (!FLAGS.includes(c)) {
        cx.uncertain(`${cx.name}: option -${c} is not in its table`, 'write', v);
        return;
      }
    }
  }
  const [file, ...rest] = args.slice(i);
  if (!file || file.value === '-') {
    cx.uncertain(`${cx.name} reads its program from stdin`);
    return;
  }
  runsCode(cx, file, `${cx.name} ${file.raw}`);
  cx.unknownOperands(rest);
};

export const pythonFamily: Record<string, CommandHandler> = {
  python,
  python2: python,
  python3: python,
  pypy: python,
  pypy3: python,
};
