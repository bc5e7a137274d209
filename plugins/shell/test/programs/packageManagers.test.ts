import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { extractAccesses } from '../../src/index.js';
import { npmPatterns, pnpmPatterns } from '../../src/programs/packages/packageWorkspaces.js';
import { context, verdict } from './envJudge.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function project(scripts: Record<string, string>): string {
  const d = mkdtempSync(join(tmpdir(), 'tg-pm-'));
  dirs.push(d);
  writeFileSync(join(d, 'package.json'), JSON.stringify({ name: 'x', scripts }));
  return d;
}

function accesses(cmd: string, cwd: string): string[] {
  const r = extractAccesses(cmd, context(cwd));
  // Markers (npmrc files npm trusts) are no accesses: the policy judges only who could write them.
  return r.accesses
    .filter((a) => a.runs === undefined)
    .map((a) => (a.certain ? `${a.op}${a.scope === 'subtree' ? '*' : ''} ${a.realPath}` : `${a.op} ?`));
}

describe('package.json scripts are analysed as shell', () => {
  it('npm run X runs preX, X and postX; arguments after -- are appended', () => {
    const d = project({
      prebuild: 'rm -rf dist',
      build: 'tsc -p . --outDir dist',
      postbuild: 'cp README.md dist/',
    });
    const a = accesses('npm run build -- --watch', d);
    expect(a).toContain(`read ${d}/package.json`);
    expect(a).toContain(`write* ${d}/dist`);
    expect(a).toContain(`read ${d}/README.md`);
    expect(extractAccesses('npm run build', context(d)).uncertain).toBe(false);
  });

  it('a script that reads a denied file is judged by what it reads', () => {
    const d = project({ leak: 'cat ~/.ssh/id_rsa', env: 'cat .env', test: 'vitest run' });
    writeFileSync(join(d, '.env'), 'K=1\n');
    expect(accesses('npm run leak', d)).toContain('read /home/agent/.ssh/id_rsa');
    expect(verdict('npm run env', d)).toMatch(/^deny/);
    // `vitest run` is a test runner: it runs the test files and the config, code nobody analysed (issue 22).
    expect(verdict('npm test', d)).toMatch(/^deny \(uncertain: `vitest` runs the test files/);
    expect(verdict('pnpm env', d)).toMatch(/^deny/);
    expect(verdict('yarn env', d)).toMatch(/^deny/);
    expect(verdict('yarn run env', d)).toMatch(/^deny/);
  });

  it('scripts run in the package directory, found upwards from the cwd', () => {
    const d = project({ clean: 'rm -rf build' });
    mkdirSync(join(d, 'src/deep'), { recursive: true });
    expect(accesses('npm run clean', join(d, 'src/deep'))).toContain(`write* ${d}/build`);
    expect(accesses(`npm --prefix ${d} run clean`, tmpdir())).toContain(`write* ${d}/build`);
  });

  it('a missing script runs nothing under npm; pnpm and yarn fall back to node_modules/.bin', () => {
    const d = project({});
    expect(extractAccesses('npm run nothing', context(d)).uncertain).toBe(false);
    expect(extractAccesses('pnpm tsc', context(d)).uncertain).toBe(true); // not installed: a download
    mkdirSync(join(d, 'node_modules/.bin'), { recursive: true });
    writeFileSync(join(d, 'node_modules/.bin/tsc'), '#!/bin/sh\n');
    chmodSync(join(d, 'node_modules/.bin/tsc'), 0o755);
    expect(extractAccesses('pnpm tsc', context(d)).uncertain).toBe(false);
    expect(extractAccesses('npx tsc --noEmit', context(d)).uncertain).toBe(false);
    expect(extractAccesses('npx create-evil-app', context(d)).uncertain).toBe(true);
  });

  it('install runs the project lifecycle scripts (prepare, postinstall) and writes node_modules', () => {
    const d = project({ postinstall: 'cat /etc/shadow', prepare: 'husky' });
    const a = accesses('npm install', d);
    expect(a).toContain('read /etc/shadow');
    expect(a).toContain(`write* ${d}/node_modules`);
    expect(a).toContain(`write ${d}/package-lock.json`);
    expect(accesses('npm install --ignore-scripts', d)).not.toContain('read /etc/shadow');
    writeFileSync(join(d, '.env'), 'K=1\n');
    const clean = project({});
    writeFileSync(join(clean, '.env'), 'K=1\n');
    expect(verdict('npm install', clean)).toBe('allow');
    expect(verdict('npm ci', clean)).toBe('allow');
    expect(verdict('pnpm add -D vitest', clean)).toBe('allow');
  });

  it('unreadable or invalid package.json, or one the line writes first, is uncertain', () => {
    const d = project({});
    writeFileSync(join(d, 'package.json'), '{not json');
    expect(extractAccesses('npm run build', context(d)).uncertain).toBe(true);
    const e = project({ build: 'true' });
    expect(extractAccesses('echo {} > package.json && npm run build', context(e)).uncertain).toBe(true);
  });
});

describe('package managers: attacks', () => {
  for (const cmd of [
    "npx -c 'cat /etc/shadow'",
    'npm exec -c "cat /etc/shadow"',
    "npm exec --call='cat /etc/shadow'",
  ]) {
    it(`inline code is analysed as shell: ${cmd}`, () => {
      const d = project({});
      expect(accesses(cmd, d)).toContain('read /etc/shadow');
    });
  }
  const cases = [
    'npm --script-shell=/tmp/evil run build',
    'npm --node-options="--require /tmp/x.js" test',
    'npm install -g evil',
    'npm i --location=global evil',
    'yarn global add evil',
    'pnpm dlx evil',
    'npx --package=evil run',
    'npm install ./evil-local-pkg',
    'npm config set script-shell /tmp/x',
    'pip install requests',
    'pip install -e .',
    'pip --python /tmp/py install x',
    'uv --directory /etc sync',
    'npm run $(echo build)',
  ];
  for (const cmd of cases) {
    it(`uncertain: ${cmd}`, () => {
      const d = project({ build: 'true', test: 'true' });
      expect(extractAccesses(cmd, context(d)).uncertain).toBe(true);
    });
  }

  it('a project .npmrc that sets a program npm runs is code', () => {
    const d = project({ build: 'true' });
    expect(extractAccesses('npm run build', context(d)).uncertain).toBe(false);
    writeFileSync(join(d, '.npmrc'), 'script-shell=./evil.sh\n');
    expect(extractAccesses('npm run build', context(d)).uncertain).toBe(true);
  });
});

describe('pip builds a local project with its own backend', () => {
  // Under strace, setuptools' `pip install -e .` opens the directory, pyproject.toml, the package and its
  // egg-info — never a gitignored .env: the project is listed, and the backend's run is uncertain (the
  // sandbox confines it), not a certain read of every file in it (a false deny of .env).
  it('pip install -e . and pip install . list the project and are uncertain; no certain access of .env', () => {
    const d = project({});
    writeFileSync(join(d, '.env'), 'KEY=secret\n');
    writeFileSync(join(d, 'pyproject.toml'), '[project]\nname = "x"\n');
    for (const cmd of ['pip install -e .', 'pip install .', 'pip wheel .']) {
      const r = extractAccesses(cmd, context(d));
      expect(r.uncertain, cmd).toBe(true);
      expect(accesses(cmd, d), cmd).toContain(`list ${d}`);
      expect(
        r.accesses.some(
          (a) =>
            a.certain &&
            a.op === 'read' &&
            a.realPath !== null &&
            (a.realPath === join(d, '.env') || (a.scope === 'subtree' && a.realPath === d)),
        ),
        cmd,
      ).toBe(false);
    }
  });

  it('twin: a local archive is read (pip reads the file; a wheel runs no backend, an sdist does)', () => {
    const d = project({});
    writeFileSync(join(d, 'x-1.0-py3-none-any.whl'), 'PK');
    expect(accesses('pip install ./x-1.0-py3-none-any.whl', d)).toContain(
      `read* ${join(d, 'x-1.0-py3-none-any.whl')}`,
    );
  });
});

describe('python environments', () => {
  it('uv and poetry use the project .venv; pip needs the target on the command line', () => {
    const d = mkdtempSync(join(tmpdir(), 'tg-py-'));
    dirs.push(d);
    writeFileSync(join(d, 'pyproject.toml'), '[project]\nname="x"\n');
    mkdirSync(join(d, '.venv'));
    expect(accesses('uv sync', d)).toContain(`write* ${d}/.venv`);
    expect(accesses('uv add requests', d)).toContain(`write ${d}/pyproject.toml`);
    expect(accesses('poetry install', d)).toContain(`write* ${d}/.venv`);
    expect(accesses('uv pip install requests', d)).toContain(`write* ${d}/.venv`);
    expect(accesses('uv run pytest tests/', d)).toContain(`write ${d}/tests`);
    expect(accesses('pip install -t vendor requests', d)).toContain(`write* ${d}/vendor`);
    rmSync(join(d, '.venv'), { recursive: true });
    expect(extractAccesses('poetry install', context(d)).uncertain).toBe(true);
  });
});

describe('init, pkg and pack act on the project files (npm-init(1), npm-pkg(1), npm-pack(1))', () => {
  it('npm init -y writes package.json; an initializer is a download that runs', () => {
    const d = project({});
    expect(accesses('npm init -y', d)).toEqual([`read ${d}/package.json`, `write ${d}/package.json`]);
    expect(accesses('pnpm init', d)).toContain(`write ${d}/package.json`);
    expect(extractAccesses('npm init vite@latest my-app', context(d)).uncertain).toBe(true);
    expect(extractAccesses('npm init -y', context(d)).uncertain).toBe(false);
  });

  it('npm pkg get reads package.json, set/delete rewrite it', () => {
    const d = project({});
    expect(accesses('npm pkg get scripts', d)).toEqual([`read ${d}/package.json`]);
    expect(accesses('npm pkg set scripts.x=y', d)).toContain(`write ${d}/package.json`);
    expect(extractAccesses('npm pkg frobnicate', context(d)).uncertain).toBe(true);
  });

  it('npm pack reads every file of the package, runs prepack/prepare/postpack, writes NAME-VERSION.tgz', () => {
    const d = mkdtempSync(join(tmpdir(), 'tg-pm-'));
    dirs.push(d);
    writeFileSync(
      join(d, 'package.json'),
      JSON.stringify({ name: '@scope/lib', version: '1.2.3', scripts: { prepack: 'cat ~/.ssh/id_rsa' } }),
    );
    const a = accesses('npm pack', d);
    expect(a).toContain(`read* ${d}`);
    expect(a).toContain(`write ${d}/scope-lib-1.2.3.tgz`);
    expect(a).toContain('read /home/agent/.ssh/id_rsa');
    expect(accesses('npm pack --dry-run --ignore-scripts', d)).toEqual([`read* ${d}`]);
    // With .env beside the sources, the pack reads it (twin: denied).
    writeFileSync(join(d, '.env'), 'K=1\n');
    expect(verdict('npm pack --dry-run --ignore-scripts', d)).toMatch(/^deny/);
  });

  // What npm 10 opened under strace (`npm pack --dry-run`, the same trees): ignore files per directory with
  // git's precedence, `.npmignore` instead of `.gitignore` where there is one, README and `main`/`bin` (and
  // everything in their directories) whatever the ignore files say.
  it('npm pack skips what the ignore files leave out, as npm-packlist does', () => {
    const d = mkdtempSync(join(tmpdir(), 'tg-pack-'));
    dirs.push(d);
    const files: Record<string, string> = {
      'package.json': JSON.stringify({
        name: 'p',
        version: '1.0.0',
        main: 'dist/index.js',
        bin: { x: 'lib/cli.js' },
      }),
      '.gitignore': '/.env\n*.log\ndist/\nlib/*.js\nREADME.md\nsecrets/\n',
      '.env': 'K=1\n',
      'README.md': 'r',
      'secrets/.env': 'K=2\n',
      'sub/.gitignore': '.env\n',
      'sub/.env': 'K=3\n',
      'sub2/.npmignore': 'a.txt\n',
      'sub2/.gitignore': '.env\nb.txt\n', // not read by npm where a .npmignore is
      'sub2/.env': 'K=4\n',
      'sub2/a.txt': 'a',
      'sub2/b.txt': 'b',
      'dist/index.js': 'x',
      'lib/cli.js': 'c',
    };
    for (const [f, text] of Object.entries(files)) {
      mkdirSync(join(d, f, '..'), { recursive: true });
      writeFileSync(join(d, f), text);
    }
    const walked = (cmd: string) => {
      const a = extractAccesses(cmd, context(d)).accesses.find((x) => x.scope === 'subtree');
      return (rel: string, isDir = false) => a?.filter?.skips(rel, isDir);
    };
    const skips = walked('npm pack --dry-run --ignore-scripts');
    expect(skips('.env')).toBe(true);
    expect(skips('secrets', true)).toBe(true);
    expect(skips('sub/.env')).toBe(true);
    expect(skips('sub2/.env')).toBe(false); // sub2's .npmignore does not list it: packed
    expect(skips('sub2/a.txt')).toBe(true);
    expect(skips('sub2/b.txt')).toBe(false);
    expect(skips('x.log')).toBe(true);
    expect(skips('README.md')).toBe(false);
    expect(skips('dist', true)).toBe(false);
    expect(skips('dist/other.js')).toBe(false);
    expect(skips('lib/cli.js')).toBe(false);
    expect(skips('node_modules', true)).toBe(true);
    expect(skips('src/a.ts')).toBe(false);
    expect(verdict('npm pack --dry-run --ignore-scripts', d)).toMatch(/^deny \(read\* .*sub2\/\.env\)$/);
    rmSync(join(d, 'sub2/.env'));
    expect(verdict('npm pack --dry-run --ignore-scripts', d)).toBe('allow');
    // A line that may rewrite an ignore file first, and a `files` list (not modelled): every file counts.
    expect(verdict('echo > .gitignore; npm pack --dry-run --ignore-scripts', d)).toMatch(/^deny/);
    writeFileSync(join(d, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', files: ['lib'] }));
    expect(verdict('npm pack --dry-run --ignore-scripts', d)).toMatch(/^deny/);
  });
});

describe('uv pip install: the environment uv finds (uv docs, "Using environments")', () => {
  const writes = (cmd: string, cwd: string, env: Record<string, string> = {}) => {
    const ctx = { ...context(cwd), env: { HOME: '/home/agent', ...env } };
    const r = extractAccesses(cmd, ctx);
    return {
      uncertain: r.uncertain,
      writes: r.accesses.filter((a) => a.op === 'write').map((a) => `${a.scope} ${a.realPath}`),
    };
  };

  it('a .venv in the cwd or a parent, else $VIRTUAL_ENV first; none: uv stops', () => {
    const d = project({});
    mkdirSync(join(d, '.venv'));
    mkdirSync(join(d, 'sub'));
    expect(writes('uv pip install -r requirements.txt', join(d, 'sub'))).toEqual({
      uncertain: false,
      writes: [`subtree ${d}/.venv`],
    });
    expect(writes('uv pip install x', d, { VIRTUAL_ENV: '/opt/venv' }).writes).toEqual(['subtree /opt/venv']);
    const bare = mkdtempSync(join(tmpdir(), 'tg-uv-'));
    dirs.push(bare);
    expect(writes('uv pip install x', bare)).toEqual({ uncertain: false, writes: [] });
  });

  it('--system and --python pick an interpreter we do not follow (uncertain)', () => {
    const d = project({});
    mkdirSync(join(d, '.venv'));
    expect(writes('uv pip install --system x', d).uncertain).toBe(true);
    expect(writes('uv pip install --python 3.12 x', d).uncertain).toBe(true);
  });
});

describe('workspace runs: the script is judged in every package the workspace lists', () => {
  /** A monorepo: `files` maps a path to its package.json scripts (the root's under ''). */
  function monorepo(files: Record<string, Record<string, string>>, manifest: Record<string, string>): string {
    const d = mkdtempSync(join(tmpdir(), 'tg-ws-'));
    dirs.push(d);
    for (const [dir, scripts] of Object.entries(files)) {
      mkdirSync(join(d, dir), { recursive: true });
      writeFileSync(join(d, dir, 'package.json'), JSON.stringify({ name: dir || 'root', scripts }));
    }
    for (const [name, text] of Object.entries(manifest)) writeFileSync(join(d, name), text);
    return d;
  }
  const PACKAGES = {
    '': { build: 'tsc -b' },
    'packages/a': { build: 'rm -rf dist && tsc -p .' },
    'packages/b': { build: 'cat ~/.ssh/id_rsa' },
    // A script whose programs are all proven (eslint would run its config: uncertain, see codeRunners).
    'packages/c': { lint: 'grep -c TODO README.md' },
    'apps/web/site': { build: 'rm -rf out' },
    'tools/x': { build: 'cat /etc/shadow' }, // not listed: never runs
  };

  it('pnpm -r / --filter / -w: each listed package that has the script, the root too', () => {
    const d = monorepo(PACKAGES, {
      'pnpm-workspace.yaml': "packages:\n  - 'packages/*'\n  - \"apps/**\" # nested\n  - '!**/test/**'\n",
    });
    for (const cmd of [
      'pnpm -r build',
      'pnpm --recursive run build',
      'pnpm --filter a build',
      'pnpm -F a build',
    ]) {
      const r = extractAccesses(cmd, context(join(d, 'packages/a')));
      expect(r.uncertain, cmd).toBe(false);
      const a = accesses(cmd, join(d, 'packages/a'));
      expect(a, cmd).toContain(`write* ${d}/packages/a/dist`);
      expect(a, cmd).toContain('read /home/agent/.ssh/id_rsa');
      expect(a, cmd).toContain(`write* ${d}/apps/web/site/out`);
      expect(a, cmd).not.toContain('read /etc/shadow');
      expect(a, cmd).toContain(`read ${d}/pnpm-workspace.yaml`);
    }
    // `-w` is pnpm's --workspace-root (a flag): it once swallowed the script name and nothing was judged.
    expect(accesses('pnpm -w build', d)).toContain('read /home/agent/.ssh/id_rsa');
    expect(verdict('pnpm -r lint', d)).toBe('allow');
  });

  it('npm --workspaces / -w and package.json "workspaces"', () => {
    const d = monorepo(PACKAGES, {});
    writeFileSync(
      join(d, 'package.json'),
      JSON.stringify({
        name: 'root',
        workspaces: ['packages/*', 'apps/*/site'],
        scripts: { build: 'tsc -b' },
      }),
    );
    for (const cmd of ['npm run build --workspaces', 'npm run build -ws', 'npm run build -w packages/a']) {
      expect(extractAccesses(cmd, context(d)).uncertain, cmd).toBe(false);
      const a = accesses(cmd, d);
      expect(a, cmd).toContain('read /home/agent/.ssh/id_rsa');
      expect(a, cmd).toContain(`write* ${d}/apps/web/site/out`);
      expect(a, cmd).not.toContain('read /etc/shadow');
    }
    writeFileSync(join(d, 'packages/b/.env'), 'K=1\n');
    writeFileSync(join(d, 'packages/b/package.json'), JSON.stringify({ scripts: { test: 'cat .env' } }));
    expect(verdict('npm test --workspaces', d)).toMatch(/^deny/);
  });

  it('without a workspace file the managers defaults apply; what cannot be enumerated with certainty is uncertain', () => {
    // No workspace file: pnpm takes every package beneath the project; npm finds no workspaces (the root is
    // judged, a superset of nothing).
    const noFile = monorepo(PACKAGES, {});
    expect(accesses('pnpm -r build', noFile)).toContain('read /etc/shadow');
    expect(accesses('npm run build -ws', noFile)).not.toContain('read /etc/shadow');
    const flow = monorepo(PACKAGES, { 'pnpm-workspace.yaml': 'packages: [packages/*, "apps/**"]\n' });
    expect(accesses('pnpm -r build', flow)).toContain(`write* ${flow}/apps/web/site/out`);
    const odd = monorepo(PACKAGES, { 'pnpm-workspace.yaml': 'packages: &list\n  - packages/*\n' });
    expect(extractAccesses('pnpm -r build', context(odd)).uncertain).toBe(true);
    // A symlinked directory where a glob walks is followed, as the managers' globs follow it; a link back up
    // is walked once.
    const linked = monorepo(PACKAGES, { 'pnpm-workspace.yaml': 'packages:\n  - packages/*\n  - apps/**\n' });
    symlinkSync(join(linked, 'tools/x'), join(linked, 'packages/x'));
    symlinkSync('..', join(linked, 'apps/web/up'));
    expect(extractAccesses('pnpm -r build', context(linked)).uncertain).toBe(false);
    expect(accesses('pnpm -r build', linked)).toContain('read /etc/shadow');
    // pnpm also reads package.yaml and package.json5 manifests: scripts we do not read.
    const yaml = monorepo(PACKAGES, { 'pnpm-workspace.yaml': 'packages:\n  - packages/*\n' });
    mkdirSync(join(yaml, 'packages/y'));
    writeFileSync(join(yaml, 'packages/y/package.yaml'), 'scripts:\n  build: cat /etc/shadow\n');
    expect(extractAccesses('pnpm -r build', context(yaml)).uncertain).toBe(true);
    // Options after the subcommand (read by pnpm, or passed to the script) and other commands in workspaces.
    const d = monorepo(PACKAGES, { 'pnpm-workspace.yaml': 'packages:\n  - packages/*\n' });
    expect(extractAccesses('pnpm build -r', context(d)).uncertain).toBe(true);
    expect(extractAccesses('pnpm -r exec rm -rf dist', context(d)).uncertain).toBe(true);
    expect(extractAccesses('pnpm -r install', context(d)).uncertain).toBe(true);
    // pnpm's own commands are not scripts (`pnpm -r rebuild` rebuilds); a bare name otherwise runs as `run`.
    expect(extractAccesses('pnpm -r rebuild', context(d)).uncertain).toBe(true);
    expect(extractAccesses('pnpm -r publish', context(d)).uncertain).toBe(true);
    expect(extractAccesses('pnpm -r lint', context(d)).uncertain).toBe(false);
  });

  it('reads the workspace files in the forms the managers write', () => {
    expect(
      pnpmPatterns("packages:\n  - 'packages/*'\n  # c\n  - apps/** # nested\ncatalog:\n  x: 1\n"),
    ).toEqual(['packages/*', 'apps/**']);
    expect(pnpmPatterns('packages: ["a/*", b]\n')).toEqual(['a/*', 'b']);
    expect(pnpmPatterns('onlyBuiltDependencies:\n  - esbuild\n')).toEqual([]);
    expect(pnpmPatterns('packages:\n  - *ref\n')).toBeNull();
    expect(pnpmPatterns('packages:\n  - "a\\"b"\n')).toBeNull();
    expect(pnpmPatterns('packages:\n  - a/*\npackages:\n  - b/*\n')).toBeNull();
    expect(npmPatterns('{"workspaces":["a/*"]}')).toEqual(['a/*']);
    expect(npmPatterns('{"workspaces":{"packages":["b"]}}')).toEqual(['b']);
    expect(npmPatterns('{"name":"x"}')).toBeNull();
  });
});
