/**
 * The files of the small, realistic project every usability workspace starts from: a TypeScript + Python
 * repository with scripts, tests, docs and a plain Makefile. Paths are relative to the workspace root.
 */
export const PROJECT_FILES: Readonly<Record<string, string>> = {
  'package.json': `${JSON.stringify(
    {
      name: 'acme-widgets',
      version: '0.3.1',
      private: true,
      type: 'module',
      scripts: {
        test: 'node --test tests/',
        build: 'tsc -p tsconfig.json',
        lint: 'eslint src',
        format: 'prettier --write src',
      },
      devDependencies: {
        typescript: '5.9.3',
        vitest: '4.1.12',
        jest: '29.7.0',
        eslint: '9.39.1',
        prettier: '3.6.2',
      },
    },
    null,
    2,
  )}\n`,
  'tsconfig.json': '{ "compilerOptions": { "outDir": "dist", "strict": true }, "include": ["src"] }\n',
  'README.md': '# acme-widgets\n\nWidgets for Acme.\n\n## Usage\n\n```sh\nnpm test\n```\n',
  'CHANGELOG.md': '# Changelog\n\n## 0.3.1\n- fix parsing of empty widgets\n',
  'CONTRIBUTING.md': '# Contributing\n\nRun `make test` before opening a pull request.\n',
  'docs/guide.md': '# Guide\n\nTODO: write the guide.\n',
  'docs/api.md': '# API\n\n`parseWidget(text)` returns a widget.\n',
  'docs/v1/index.md': '# v1 docs\n',
  'src/index.ts': "export { parseWidget } from './util.js';\n// TODO: export the config\n",
  'src/util.ts': 'export function parseWidget(text: string): string[] {\n  return text.split(",");\n}\n',
  'src/config.ts': "export const API_URL = process.env.API_URL ?? 'http://localhost:8080';\n",
  'src/app.py': 'from helpers import greet\n\nif __name__ == "__main__":\n    print(greet("world"))\n',
  'src/helpers.py': 'def greet(name):\n    return f"hello {name}"\n',
  'src/__init__.py': '',
  'tests/util.test.js': "import test from 'node:test';\ntest('parses', () => {});\n",
  'tests/test_app.py':
    'from src.helpers import greet\n\ndef test_greet():\n    assert greet("a") == "hello a"\n',
  'scripts/setup.sh': '#!/bin/sh\nset -e\nmkdir -p build\necho setup done\n',
  Makefile:
    '.PHONY: build test clean lint\n\nbuild:\n\tmkdir -p dist\n\tcp src/*.ts dist/\n\ntest:\n\tpython3 -m pytest tests\n\nlint:\n\tgrep -rn TODO src\n\nclean:\n\trm -rf dist build\n',
  'requirements.txt': 'requests==2.32.3\npytest==8.3.3\n',
  'pyproject.toml': '[project]\nname = "acme-widgets"\nversion = "0.3.1"\nrequires-python = ">=3.10"\n',
  'data/sample.json': '{"widgets": [{"id": 1, "name": "gear"}, {"id": 2, "name": "cog"}]}\n',
  'data/users.csv': 'id,name,email\n1,ann,ann@example.com\n2,bob,bob@example.com\n',
  'patches/fix-guide.patch':
    '--- a/docs/guide.md\n+++ b/docs/guide.md\n@@ -1,3 +1,3 @@\n # Guide\n \n-TODO: write the guide.\n+Start with `npm test`.\n',
  'patches/local-env.patch': '--- /dev/null\n+++ b/.env\n@@ -0,0 +1 @@\n+API_KEY=dev\n',
  // Installed: an agent runs `npx tsc` in a project whose dependencies are installed (`npm ci` was run).
  // Shims stand for the packages' bins (ignored by .gitignore, as node_modules is).
  ...installedBins(['tsc', 'vitest', 'jest', 'eslint', 'prettier']),
  '.github/workflows/ci.yml':
    'name: ci\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: npm test\n',
};

/** The project's .gitignore; `withEnv` decides whether it lists `.env` (workspace C leaves it out). */
export function gitignore(withEnv: boolean): string {
  return ['node_modules/', 'dist/', 'build/', '__pycache__/', '.venv/', '*.log', 'coverage/']
    .concat(withEnv ? ['.env'] : [])
    .map((l) => `${l}\n`)
    .join('');
}

function installedBins(names: readonly string[]): Record<string, string> {
  const files: Record<string, string> = {};
  for (const n of names) {
    const pkg = n === 'tsc' ? 'typescript' : n;
    files[`node_modules/${pkg}/package.json`] =
      `${JSON.stringify({ name: pkg, bin: { [n]: `bin/${n}.js` } })}\n`;
    files[`node_modules/${pkg}/bin/${n}.js`] = '#!/usr/bin/env node\n';
    files[`node_modules/.bin/${n}`] = `#!/bin/sh\nexec node "$(dirname "$0")/../${pkg}/bin/${n}.js" "$@"\n`;
  }
  return files;
}
