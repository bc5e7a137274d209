import type { NetMethod } from '@toolgate/core';
import type { CommandContext, CommandHandler } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { parseArgs, values } from '../argv.js';
import {
  environmentProxyReach,
  reachAddress,
  unknownHost,
  variableValue,
} from '../network/reach/netReach.js';
import { literal } from '../spec.js';

// Where pip (and `uv pip`) connect (pip docs "User Guide: Configuration", `pip install --help`): the index
// (`-i/--index-url`, `PIP_INDEX_URL`, pip.conf's `index-url`; default https://pypi.org/simple, whose files
// come from files.pythonhosted.org), every `--extra-index-url`, `-f/--find-links` URLs, `--proxy`, URLs given
// as requirements (`git+https://…`, `pkg @ https://…`), and the same lines of `-r` files (read when they can
// be read with certainty; a nested `-r`/`-c` in them makes the reach uncertain).

const PIP_NETWORK = new Set(['install', 'download', 'wheel', 'index', 'search']);
const DEFAULT_INDEX = ['https://pypi.org/simple', 'https://files.pythonhosted.org/'];
const PIP_SPEC = {
  short: 'iferct',
  long: [
    'index-url',
    'extra-index-url',
    'find-links',
    'requirement',
    'constraint',
    'proxy',
    'target',
    'prefix',
    'root',
    'python',
    'default-index',
    'index',
    'cache-dir',
    'src',
    'editable',
    'config-file',
    'trusted-host',
    'upgrade-strategy',
    'platform',
    'python-version',
    'implementation',
    'abi',
    'no-binary',
    'only-binary',
    'progress-bar',
    'log',
    'timeout',
    'retries',
    'exists-action',
    'cert',
    'client-cert',
    'report',
    'dest',
    'd',
  ],
};

interface Sources {
  index: { url: string; from: string }[];
  extra: { url: string; from: string }[];
  noIndex: boolean;
  unknown?: string;
}

/** pip.conf files pip reads (pip docs "Configuration": global, user, site; `PIP_CONFIG_FILE`). */
function pipConf(cx: CommandContext, s: Sources): void {
  const home = variableValue(cx, 'HOME');
  const xdg = variableValue(cx, 'XDG_CONFIG_HOME');
  const venv = variableValue(cx, 'VIRTUAL_ENV');
  const explicit = variableValue(cx, 'PIP_CONFIG_FILE');
  if (home === null || xdg === null || venv === null || explicit === null) {
    s.unknown ??= 'where pip.conf is, is not known';
    return;
  }
  const files = ['/etc/pip.conf', '/etc/xdg/pip/pip.conf'];
  if (home !== undefined) files.push(`${xdg ?? `${home}/.config`}/pip/pip.conf`, `${home}/.pip/pip.conf`);
  if (venv !== undefined) files.push(`${venv}/pip.conf`);
  if (explicit !== undefined && explicit !== 'os.devnull') files.push(explicit);
  // Later files override earlier ones (pip reads global, user, site, then PIP_CONFIG_FILE).
  for (const f of files.reverse()) {
    const c = cx.readContent(literal(f), 64 * 1024);
    if ('uncertain' in c) {
      if (!/: (ENOENT|ENOTDIR)$/.test(c.uncertain)) s.unknown ??= `${f}: ${c.uncertain}`;
      continue;
    }
    let section = '';
    for (const line of c.text.split(/\r?\n/)) {
      const sec = /^\s*\[([^\]]+)\]/.exec(line);
      if (sec) {
        section = sec[1]!.trim().toLowerCase();
        continue;
      }
      const kv = /^\s*([a-z-_]+)\s*[=:]\s*(.*?)\s*$/i.exec(line);
      if (!kv || !['global', 'install', 'download', 'wheel'].includes(section)) continue;
      const key = kv[1]!.toLowerCase().replace(/_/g, '-');
      if (key === 'index-url' && s.index.length === 0) s.index.push({ url: kv[2]!, from: f });
      else if (key === 'extra-index-url') {
        for (const u of kv[2]!.split(/\s+/)) if (u) s.extra.push({ url: u, from: f });
      } else if (key === 'no-index' && /^(1|true|yes|on)$/i.test(kv[2]!)) s.noIndex = true;
    }
  }
}

/** Lines of a requirements file that name where pip goes (pip docs "Requirements File Format"). */
function requirementsFile(cx: CommandContext, f: Field, s: Sources, urls: string[], depth: number): void {
  const c = cx.readContent(f, 1024 * 1024);
  if ('uncertain' in c) {
    s.unknown ??= `${f.raw}: ${c.uncertain}`;
    return;
  }
  for (const raw of c.text.replace(/\\\r?\n/g, ' ').split(/\r?\n/)) {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (line === '') continue;
    if (/\$\{/.test(line)) {
      s.unknown ??= `${f.raw}: ${line} uses an environment variable`;
      continue;
    }
    const opt =
      /^(-i|--index-url|--extra-index-url|-f|--find-links|-r|--requirement|-c|--constraint)(?:\s*=\s*|\s+)(\S+)/.exec(
        line,
      );
    if (opt) {
      const [, o, v] = opt;
      if (o === '-i' || o === '--index-url') s.index.unshift({ url: v!, from: f.raw });
      else if (o === '--extra-index-url' || o === '-f' || o === '--find-links')
        s.extra.push({ url: v!, from: f.raw });
      else if (depth >= 2) s.unknown ??= `${f.raw} nests requirement files too deeply`;
      else
        requirementsFile(
          cx,
          { ...literal(v!.startsWith('/') ? v! : `${f.value.replace(/[^/]*$/, '')}${v}`) },
          s,
          urls,
          depth + 1,
        );
      continue;
    }
    if (/^--no-index\b/.test(line)) s.noIndex = true;
    const url = requirementUrl(line);
    if (url !== undefined) urls.push(url);
  }
}

/** A URL anywhere in a requirement (`pkg @ https://…`, `-e git+https://…`, a bare archive URL). */
function requirementUrl(spec: string): string | undefined {
  const direct = /((?:git\+|hg\+|svn\+|bzr\+)?[a-z][a-z0-9+.-]*:\/\/[^\s;#]+)/i.exec(spec)?.[1];
  return direct?.replace(/^(git|hg|svn|bzr)\+/i, '');
}

function pipLike(
  cx: CommandContext,
  p: ReturnType<typeof parseArgs>,
  method: NetMethod,
  env: readonly string[],
): void {
  const s: Sources = { index: [], extra: [], noIndex: p.opts.some((o) => o.name === '--no-index') };
  const urls: string[] = [];
  for (const f of values(p, '-i', '--index-url', '--default-index'))
    s.index.push({ url: f.uncertain ? '$' : f.value, from: '--index-url' });
  for (const f of values(p, '--extra-index-url', '-f', '--find-links', '--index'))
    s.extra.push({ url: f.uncertain ? '$' : f.value, from: '--extra-index-url' });
  for (const name of env) {
    const v = variableValue(cx, name);
    if (v === null) s.unknown ??= `$${name} is not known`;
    else if (v !== undefined)
      (/EXTRA|FIND_LINKS/.test(name) ? s.extra : s.index).push(
        ...v
          .split(/\s+/)
          .filter(Boolean)
          .map((url) => ({ url, from: `$${name}` })),
      );
  }
  if (cx.name === 'pip' || cx.name === 'pip3') pipConf(cx, s);
  for (const r of values(p, '-r', '--requirement', '-c', '--constraint')) {
    if (r.uncertain !== undefined) s.unknown ??= 'a requirements file is not known';
    else requirementsFile(cx, r, s, urls, 0);
  }
  for (const op of [...p.operands.slice(1), ...values(p, '-e', '--editable')]) {
    if (op.uncertain !== undefined) {
      unknownHost(cx, op.raw, { method }, `${cx.name}: a requirement is not known`);
      continue;
    }
    const url = requirementUrl(op.value);
    if (url !== undefined) urls.push(url);
  }
  if (s.unknown !== undefined) {
    unknownHost(cx, 'index', { method }, `${cx.name}: ${s.unknown}`);
    return;
  }
  const reached: string[] = [];
  if (!s.noIndex) {
    const index = s.index[0];
    if (index === undefined)
      for (const u of DEFAULT_INDEX) {
        reachAddress(cx, u, { method });
        reached.push(u);
      }
    else {
      reachAddress(cx, index.url, { method, reason: `index from ${index.from}` });
      reached.push(index.url);
    }
  }
  for (const e of s.extra)
    if (/^[a-z]+:\/\//i.test(e.url) && !/^file:/i.test(e.url)) {
      reachAddress(cx, e.url, { method, reason: `from ${e.from}` });
      reached.push(e.url);
    }
  for (const u of urls)
    if (!/^file:/i.test(u)) {
      reachAddress(cx, u, { method, origin: `${cx.name}:requirement` });
      reached.push(u);
    }
  // pip talks through requests: HTTP(S)_PROXY in either case, unless --proxy names one.
  if (values(p, '--proxy').length === 0)
    for (const u of reached) environmentProxyReach(cx, u, method, 'both', `${cx.name}:proxy`);
  for (const x of values(p, '--proxy'))
    reachAddress(cx, x, { method, scheme: 'http', port: 1080, origin: `${cx.name}:proxy` });
}

/** pip/pip3 SUBCOMMAND: install, download, wheel, index, search reach the index. */
const pip: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, PIP_SPEC);
  const sub = p.operands[0];
  if (!sub || (sub.uncertain === undefined && !PIP_NETWORK.has(sub.value))) return;
  pipLike(cx, p, 'read', ['PIP_INDEX_URL', 'PIP_EXTRA_INDEX_URL', 'PIP_FIND_LINKS']);
};

/** uv pip install/compile/sync (pip's rules, uv's variables); uv add/sync/lock: the project's index. */
const uv: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, PIP_SPEC);
  const [first, second] = p.operands;
  const uvEnv = ['UV_INDEX_URL', 'UV_DEFAULT_INDEX', 'UV_EXTRA_INDEX_URL', 'UV_INDEX', 'UV_FIND_LINKS'];
  if (first?.value === 'pip' && second && ['install', 'compile', 'sync'].includes(second.value)) {
    pipLike(cx, { ...p, operands: p.operands.slice(1) }, 'read', uvEnv);
    return;
  }
  if (!first || !['add', 'sync', 'lock', 'tool', 'venv', 'python'].includes(first.value)) return;
  if (first.value === 'venv' || first.value === 'python') return; // venv seeds from the cache; python: limits
  const pyproject = cx.readContent(literal('pyproject.toml'), 1024 * 1024);
  const uvToml = cx.readContent(literal('uv.toml'), 64 * 1024);
  const custom =
    ('text' in pyproject &&
      /\[\[?tool\.uv\.index|index-url|find-links|\[tool\.uv\.sources/.test(pyproject.text)) ||
    'text' in uvToml;
  if (custom) {
    unknownHost(
      cx,
      'index',
      { method: 'read' },
      'uv: the project names its own indexes (pyproject.toml / uv.toml)',
    );
    return;
  }
  pipLike(cx, { ...p, operands: [] }, 'read', uvEnv);
};

/**
 * poetry (python-poetry.org/docs/repositories): PyPI (pypi.org, files.pythonhosted.org) for
 * add/install/update/lock/search/show --outdated, publish to upload.pypi.org; sources in pyproject.toml
 * (`[[tool.poetry.source]]`) or `POETRY_REPOSITORIES_*` make the reach uncertain.
 */
const poetry: CommandHandler = (cx) => {
  const sub = cx.args.find((f) => !f.value.startsWith('-'));
  if (
    !sub ||
    sub.uncertain !== undefined ||
    !/^(add|install|update|lock|search|publish|sync|self)$/.test(sub.value)
  )
    return;
  const method = sub.value === 'publish' ? 'write' : 'read';
  const pyproject = cx.readContent(literal('pyproject.toml'), 1024 * 1024);
  if (
    ('text' in pyproject && /tool\.poetry\.source|\bsource\s*=/.test(pyproject.text)) ||
    cx.args.some((f) => f.value.startsWith('--repository') || f.value === '-r')
  ) {
    unknownHost(cx, 'pyproject.toml', { method }, 'poetry: the project names its own sources');
    return;
  }
  if (method === 'write') reachAddress(cx, 'https://upload.pypi.org/legacy/', { method });
  else for (const u of DEFAULT_INDEX) reachAddress(cx, u, { method });
};

export const pipReach: Record<string, CommandHandler> = { pip, pip3: pip, uv, poetry };
