import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CommandContext, CommandHandler } from '../../effects/extractTypes.js';
import { parseArgs, values } from '../argv.js';
import { emitOptions, literal } from '../spec.js';

// pip, uv and poetry install into "the active environment". What that is depends on PATH and VIRTUAL_ENV,
// which a command handler cannot see: so an install is certain only where the environment is on the
// command line (`--target`, `--prefix`, `pip -t`, `uv --python .venv`) or is the project's own `.venv`,
// which uv and poetry use by default. Everything else writes a site directory we cannot name: uncertain.

/** The nearest ancestor of the cwd holding `pyproject.toml`: a uv/poetry project root. */
function projectRoot(cx: CommandContext): string | null {
  const real = cx.resolveDir(literal('.'));
  if (real === null) return null;
  for (let d = real; ; d = dirname(d)) {
    if (existsSync(`${d}/pyproject.toml`)) return d;
    if (d === '/') return null;
  }
}

const PIP_WRITES = new Set(['install', 'uninstall']);
const PIP_READS = new Set([
  'list',
  'show',
  'freeze',
  'check',
  'help',
  'search',
  'index',
  'inspect',
  'debug',
  'hash',
  'cache',
  'config',
  '--version',
  '-V',
]);

/**
 * The environment `uv pip install/uninstall/sync` changes (uv docs, "Using environments"): `--system` or
 * `--python` pick an interpreter we do not follow; else VIRTUAL_ENV, then CONDA_PREFIX, then a `.venv` in the
 * cwd or its nearest parent. With none of them uv stops ("No virtual environment found").
 */
function uvPipEnvironment(
  cx: CommandContext,
  p: ReturnType<typeof parseArgs>,
): string | 'none' | { uncertain: string } {
  if (
    cx.args.some((f) => f.value === '--system' || f.value.startsWith('--python')) ||
    values(p, '--python').length > 0
  )
    return { uncertain: '--system/--python installs into an interpreter we do not follow' };
  for (const name of ['VIRTUAL_ENV', 'CONDA_PREFIX']) {
    const v = cx.variable(name);
    if (v === null) return { uncertain: `$${name} is not known` };
    if (v !== undefined && v !== '') return v.startsWith('/') ? v : { uncertain: `$${name} is not absolute` };
  }
  const real = cx.resolveDir(literal('.'));
  if (real === null) return { uncertain: 'the cwd is not known' };
  for (let d = real; ; d = dirname(d)) {
    if (existsSync(`${d}/.venv`)) return `${d}/.venv`;
    if (d === '/') return 'none';
  }
}

/** pip: installs into a site directory that is not on the command line unless `--target`/`--prefix`/`--root`. */
const pip: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, {
    short: 'rcedtbiw',
    long: [
      'requirement',
      'constraint',
      'editable',
      'target',
      'prefix',
      'root',
      'src',
      'dest',
      'index-url',
      'extra-index-url',
      'find-links',
      'log',
      'cache-dir',
      'python',
      'build',
      'wheel-dir',
      'platform',
      'python-version',
      'implementation',
      'abi',
      'upgrade-strategy',
      'progress-bar',
      'proxy',
      'retries',
      'timeout',
      'exists-action',
      'trusted-host',
      'cert',
      'client-cert',
      'report',
      'config-settings',
      'global-option',
      'no-binary',
      'only-binary',
      'format',
      'exclude',
    ],
  });
  emitOptions(cx, p, {
    '-r': 'read',
    '--requirement': 'read',
    '-c': 'read',
    '--constraint': 'read',
    '-e': 'read',
    '--editable': 'read',
    '--log': 'write',
    '--cache-dir': 'write',
    '--report': 'write',
  });
  const [sub, ...rest] = p.operands;
  const name = sub?.value ?? '';
  if (values(p, '--python').length > 0) cx.uncertain('pip --python runs another interpreter');
  const targets = values(
    p,
    '-t',
    '--target',
    '--prefix',
    '--root',
    '-d',
    '--dest',
    '--src',
    '-w',
    '--wheel-dir',
  );
  for (const t of targets) cx.write(t, { scope: 'subtree', tag: 'target' });
  // A local project or archive is built by its own build backend (setup.py): code from the workspace.
  // A project directory is not read whole: what the backend opens is its own (under strace, setuptools'
  // `pip install -e .` opens the directory, pyproject.toml, the package and its egg-info — never a
  // gitignored .env), and the backend's run is uncertain anyway: the directory is listed, the run confined.
  for (const f of [...rest, ...values(p, '-e', '--editable')]) {
    if (/^(\.{0,2}\/|~|file:)/.test(f.value) || f.value === '.') {
      const builds = name === 'install' || name === 'wheel';
      if (builds && !f.value.startsWith('file:') && isDirectory(cx.resolveDir(f)))
        cx.emit(f, 'list', { tag: 'local-project' });
      else cx.read(f, { scope: 'subtree', tag: 'local-project' });
      if (builds) cx.uncertain(`pip ${name} ${f.raw} runs the project's build backend`);
    }
  }
  if (sub?.uncertain !== undefined) cx.uncertain('pip: the subcommand is not known');
  else if (PIP_WRITES.has(name) && targets.length === 0)
    cx.uncertain(`pip ${name} writes to a site directory we cannot see`);
  else if (
    !PIP_WRITES.has(name) &&
    !PIP_READS.has(name) &&
    name !== 'download' &&
    name !== 'wheel' &&
    name !== ''
  )
    cx.uncertain(`pip ${name}: not a command we model`);
};

function isDirectory(real: string | null): boolean {
  try {
    return real !== null && statSync(real).isDirectory();
  } catch {
    return false;
  }
}

/** uv: project commands use the project's `.venv`; `uv pip` follows pip; `uv run` runs its command there. */
const uv: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, {
    short: 'pw',
    long: [
      'python',
      'directory',
      'project',
      'with',
      'cache-dir',
      'index-url',
      'extra-index-url',
      'group',
      'extra',
      'package',
      'from',
      'config-file',
      'env-file',
    ],
    posix: true,
  });
  if (values(p, '--directory', '--project').length > 0) {
    cx.uncertain('uv --directory/--project: another project');
    return;
  }
  emitOptions(cx, p, { '--config-file': 'read', '--env-file': 'read', '--cache-dir': 'write' });
  const [sub, ...rest] = p.operands;
  const name = sub?.value ?? '';
  const root = projectRoot(cx);
  const venv = (): void => {
    if (root === null) cx.uncertain(`uv ${name}: no pyproject.toml, the environment is not known`);
    else {
      cx.write(literal(`${root}/.venv`), { scope: 'subtree', tag: 'venv' });
      cx.write(literal(`${root}/uv.lock`), { tag: 'lock' });
    }
  };
  if (['sync', 'lock', 'add', 'remove', 'venv'].includes(name)) {
    venv();
    if (name === 'add' || name === 'remove')
      cx.write(literal(`${root ?? '.'}/pyproject.toml`), { tag: 'pyproject' });
  } else if (name === 'run') {
    venv();
    const [cmd, ...args] = rest.filter((f) => !f.value.startsWith('-'));
    if (cmd) cx.exec([cmd, ...args]);
  } else if (name === 'pip') {
    const action = rest[0]?.value ?? '';
    if (['install', 'uninstall', 'sync'].includes(action)) {
      // Options come after `pip ACTION` here: the requirement and constraint files they name are read.
      const after = parseArgs(rest.slice(1), {
        short: 'rceP',
        long: ['requirement', 'constraint', 'python'],
      });
      for (const f of values(after, '-r', '--requirement', '-c', '--constraint'))
        cx.read(f, { tag: 'requirements' });
      const env = uvPipEnvironment(cx, p);
      if (env === 'none') return; // uv: "No virtual environment found": it writes nothing
      if (typeof env === 'string') cx.write(literal(env), { scope: 'subtree', tag: 'venv' });
      else cx.uncertain(`uv pip ${action}: ${env.uncertain}`);
    } else if (!['list', 'show', 'freeze', 'check', 'tree'].includes(action))
      cx.uncertain(`uv pip ${action}: not modelled`);
  } else if (
    !['--version', 'version', 'help', 'tree', 'python', 'cache'].includes(name) ||
    (name === 'python' && rest[0]?.value === 'install')
  ) {
    cx.uncertain(`uv ${name}: not a command we model`);
  }
};

/** poetry: uses the project's `.venv` when it exists (else a cache directory we do not name). */
const poetry: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, {
    short: 'CP',
    long: ['directory', 'project', 'with', 'without', 'only', 'extras', 'group'],
    posix: true,
  });
  const [sub, ...rest] = p.operands;
  const name = sub?.value ?? '';
  const root = values(p, '-C', '--directory', '-P', '--project').length > 0 ? null : projectRoot(cx);
  const hasVenv = root !== null && existsSync(`${root}/.venv`);
  const venv = (): void => {
    if (hasVenv) cx.write(literal(`${root}/.venv`), { scope: 'subtree', tag: 'venv' });
    else cx.uncertain(`poetry ${name}: the virtualenv is outside the project (poetry's cache)`);
  };
  if (['install', 'add', 'remove', 'update', 'sync', 'lock'].includes(name)) {
    if (name !== 'lock') venv();
    if (root !== null) {
      cx.write(literal(`${root}/poetry.lock`), { tag: 'lock' });
      if (name === 'add' || name === 'remove')
        cx.write(literal(`${root}/pyproject.toml`), { tag: 'pyproject' });
    }
  } else if (name === 'run') {
    venv();
    const [cmd, ...args] = rest;
    if (cmd) cx.exec([cmd, ...args]);
  } else if (name === 'build') {
    if (root === null) cx.uncertain('poetry build: no project');
    else cx.write(literal(`${root}/dist`), { scope: 'subtree', tag: 'dist' });
  } else if (['show', 'check', 'version', '--version', 'about', 'help', 'list', 'search'].includes(name)) {
    if (root !== null) cx.read(literal(`${root}/pyproject.toml`), { tag: 'pyproject' });
    if (name === 'version' && rest.some((f) => !f.value.startsWith('-')))
      cx.write(literal(`${root ?? '.'}/pyproject.toml`));
  } else cx.uncertain(`poetry ${name}: not a command we model`);
};

export const pythonPackages: Record<string, CommandHandler> = { pip, pip3: pip, uv, poetry };
