import { existsSync } from 'node:fs';
import { posix } from 'node:path';
import type { CommandContext, CommandHandler } from '../effects/extractTypes.js';
import type { Field } from '../state/expandWord.js';
import { has, parseArgs, values } from './argv.js';
import { emitOptions, literal } from './spec.js';

const GIT_READ = new Set([
  'status',
  'log',
  'diff',
  'show',
  'blame',
  'grep',
  'ls-files',
  'ls-tree',
  'rev-parse',
  'describe',
  'shortlog',
  'cat-file',
  'whatchanged',
  'cherry',
  'count-objects',
  'fsck',
  'help',
  'version',
  'var',
  'check-ignore',
  'name-rev',
  'merge-base',
  'for-each-ref',
  'show-ref',
  'rev-list',
  'annotate',
  'range-diff',
]);
// Configuration keys whose values are programs git runs.
const GIT_RUNS =
  /^(alias\.|core\.(sshcommand|pager|editor|fsmonitor|hookspath|gitproxy|askpass)|diff\.|filter\.|credential\.|sequence\.editor|gpg\.|merge\..*\.driver|.*\.(command|cmd|program|helper|textconv|tool))/i;

/** Git works on the whole repository: the nearest ancestor with `.git` (or the dir itself). */
function repoRoot(cx: CommandContext, dir: Field): Field {
  if (dir.uncertain !== undefined || dir.glob >= 0) return dir;
  const base = cx.resolveDir(dir);
  if (base === null) return dir;
  for (let d = base; ; d = posix.dirname(d)) {
    if (existsSync(`${d}/.git`)) return { ...dir, value: d, tilde: false };
    if (d === '/') return dir;
  }
}

/** git [-C DIR] [-c k=v] SUBCOMMAND: read-only subcommands read the repository, the rest write it. */
const git: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, {
    short: 'Cc',
    long: ['git-dir', 'work-tree', 'namespace', 'exec-path', 'config-env', 'super-prefix'],
    posix: true,
  });
  for (const c of values(p, '-c', '--config-env')) {
    if (c.uncertain !== undefined || GIT_RUNS.test(c.value))
      cx.uncertain(`git -c ${c.value} configures a program git runs`);
  }
  if (values(p, '--exec-path').length > 0)
    cx.uncertain('git --exec-path runs programs from another directory');
  let dir: Field = literal('.');
  for (const c of values(p, '-C'))
    dir = c.value.startsWith('/') || c.tilde ? c : { ...c, value: `${dir.value}/${c.value}` };
  const [sub, ...rest] = p.operands;
  const name = sub?.value ?? 'help';
  if (name === 'config' && rest.some((f) => f.uncertain !== undefined || GIT_RUNS.test(f.value))) {
    cx.uncertain('git config sets a program git will run');
  }
  const read =
    GIT_READ.has(name) ||
    (name === 'branch' && rest.every((f) => f.value.startsWith('-') && !/^-[dDmMcC]/.test(f.value))) ||
    (name === 'config' && rest.some((f) => /^--(get|list|get-all|get-regexp)$|^-l$/.test(f.value)));
  const extra = [...values(p, '--git-dir'), ...values(p, '--work-tree')];
  for (const e of extra) cx.write(e, { scope: 'subtree', tag: 'git-dir' });
  if (name === 'clone') {
    const ops = parseArgs(rest, {
      short: 'obcju',
      long: [
        'origin',
        'branch',
        'config',
        'depth',
        'reference',
        'separate-git-dir',
        'template',
        'upload-pack',
        'jobs',
        'filter',
      ],
    });
    if (values(ops, '-u', '--upload-pack', '-c', '--config').length > 0)
      cx.uncertain('git clone runs a configured program');
    const target = ops.operands[1];
    const into = target
      ? target.value.startsWith('/') || target.tilde
        ? target
        : { ...target, value: `${dir.value}/${target.value}` }
      : dir;
    cx.write(into, { scope: 'subtree', tag: 'clone' });
    // A repository may hold symlinks pointing anywhere: what this line reaches inside it is not known.
    cx.taint(into);
    return;
  }
  if (name === 'init') {
    const target = rest.find((f) => !f.value.startsWith('-'));
    cx.write(target ?? dir, { scope: 'subtree', tag: 'init' });
    return;
  }
  const root = repoRoot(cx, dir);
  cx.emit(root, read ? 'read' : 'write', { scope: 'subtree', tag: name });
  for (const f of rest) {
    if (
      f.uncertain !== undefined ||
      (!f.value.startsWith('-') && (f.value.includes('/') || f.value.startsWith('.') || f.tilde))
    ) {
      const inDir =
        f.value.startsWith('/') || f.tilde || f.uncertain !== undefined
          ? f
          : { ...f, value: `${dir.value}/${f.value}` };
      if (f.value.includes(':') && !f.value.startsWith('/') && !f.value.startsWith('.')) continue; // rev:path
      cx.emit(inDir, read ? 'read' : 'write', { tag: name });
    }
  }
};

/** make [-C DIR] [-f FILE]: builds under DIR (recipes are programs and are not analysed). */
const make: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, {
    short: 'CfIjloWE',
    long: [
      'directory',
      'file',
      'makefile',
      'include-dir',
      'jobs',
      'load-average',
      'old-file',
      'assume-old',
      'what-if',
      'new-file',
      'assume-new',
      'eval',
    ],
  });
  emitOptions(cx, p, {
    '-f': 'read',
    '--file': 'read',
    '--makefile': 'read',
    '-I': 'read',
    '--include-dir': 'read',
  });
  if (values(p, '-E', '--eval').length > 0) cx.uncertain('make --eval adds rules we do not analyse');
  let dir: Field = literal('.');
  for (const c of values(p, '-C', '--directory'))
    dir = c.value.startsWith('/') || c.tilde ? c : { ...c, value: `${dir.value}/${c.value}` };
  cx.write(dir, { scope: 'subtree', tag: 'build' });
};

/** npm/pnpm/yarn: work in `--prefix`/`-C`/`--dir`/`--cwd` (or the cwd); `-g` installs somewhere global. */
function packageManager(dirOpts: string[]): CommandHandler {
  return (cx) => {
    const p = parseArgs(cx.args, {
      short: 'C',
      long: [
        'prefix',
        'dir',
        'cwd',
        'filter',
        'workspace',
        'registry',
        'tag',
        'loglevel',
        'userconfig',
        'cache',
      ],
    });
    emitOptions(cx, p, { '--userconfig': 'read', '--cache': 'write' });
    if (has(p, '-g', '--global', '--location=global'))
      cx.uncertain(`${cx.name} -g writes to a global prefix`);
    const dir = values(p, ...dirOpts)[0] ?? literal('.');
    cx.write(dir, { scope: 'subtree', tag: 'project' });
  };
}

/** pip: installs into a site directory that is not on the command line unless `--target`/`--prefix`. */
const pip: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, {
    short: 'rcedtbi',
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
  });
  const [sub] = p.operands;
  const targets = values(p, '-t', '--target', '--prefix', '--root', '-d', '--dest', '--src');
  for (const t of targets) cx.write(t, { scope: 'subtree', tag: 'target' });
  if (sub && ['install', 'uninstall', 'download', 'wheel'].includes(sub.value) && targets.length === 0) {
    cx.uncertain(`pip ${sub.value} writes to a site directory we cannot see`);
  }
};

export const buildTools: Record<string, CommandHandler> = {
  git,
  make,
  gmake: make,
  npm: packageManager(['--prefix']),
  pnpm: packageManager(['-C', '--dir']),
  yarn: packageManager(['--cwd']),
  npx: packageManager(['--prefix']),
  pip,
  pip3: pip,
};
