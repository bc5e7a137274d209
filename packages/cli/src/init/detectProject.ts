import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** Files that mark a project root, and the ecosystem each one says the project uses. */
const MARKERS: ReadonlyArray<[string, string | undefined]> = [
  ['package.json', 'node'],
  ['pnpm-workspace.yaml', 'node'],
  ['pyproject.toml', 'python'],
  ['requirements.txt', 'python'],
  ['Cargo.toml', 'rust'],
  ['go.mod', 'go'],
  ['.git', undefined],
];

export interface Project {
  /** The workspace root: the nearest directory (from `start` up) with a VCS root or project manifest. */
  root: string;
  /** What was found there: `git`, `node`, `python`, … */
  kinds: string[];
}

/**
 * The project `toolgate init` writes a policy for. The git root wins over a nested package (a monorepo's
 * policy belongs at its top); without either, the starting directory itself.
 */
export function detectProject(start: string): Project {
  let found: string | undefined;
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) {
      found = dir;
      break;
    }
    if (found === undefined && MARKERS.some(([m]) => existsSync(join(dir, m)))) found = dir;
    if (dirname(dir) === dir) break;
  }
  const root = found ?? resolve(start);
  const kinds = [
    ...new Set(
      MARKERS.filter(([m]) => existsSync(join(root, m))).map(
        ([m, kind]) => kind ?? (m === '.git' ? 'git' : m),
      ),
    ),
  ];
  return { root, kinds };
}
