import { type Dirent, existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, posix } from 'node:path';
import { Minimatch } from 'minimatch';
import type { CommandContext } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { literal } from '../spec.js';

// Workspace runs — `pnpm -r build`, `pnpm --filter web test`, `npm run build --workspaces`, `npm -w api test`:
// the script runs in packages of the workspace. Which ones: those its workspace file lists, the globs walked
// now — pnpm-workspace.yaml `packages` (pnpm), the root package.json `workspaces` (npm, yarn). Over-approximated
// on purpose: every listed package (a filter or `-w` picks fewer), the root too (pnpm's include-workspace-root,
// npm's --include-workspace-root), exclusions (`!…`) ignored — a script judged that does not run costs at most
// a refusal, a package missed would be a script run unjudged. What cannot be enumerated with certainty is
// uncertain: a workspace file we do not read, a manifest other than package.json, a bound passed.

/** Directories a walked glob may visit before the enumeration gives up (uncertain). */
const MAX_DIRS = 5000;
const MAGIC = /[*?[\]{}()!+@]/;
const SKIP = new Set(['node_modules', 'bower_components', '.git']);

export type Workspaces = { dirs: Field[] } | { uncertain: string };

/**
 * The package directories a workspace run may run a script in: the workspace root (the nearest ancestor of
 * `dir` holding pnpm-workspace.yaml for pnpm, a package.json with `workspaces` for npm and yarn) and every
 * directory with a package.json its globs match. The workspace file is read (and judged) as the manager reads it.
 */
export function workspacePackages(cx: CommandContext, pnpm: boolean, dir: Field): Workspaces {
  const start = cx.resolveDir(dir);
  if (start === null) return { uncertain: 'the project directory is not known' };
  for (let d = start; ; d = dirname(d)) {
    const file = pnpm ? `${d}/pnpm-workspace.yaml` : `${d}/package.json`;
    if (existsSync(file)) {
      const field = literal(file);
      cx.read(field, { tag: 'workspaces' });
      const content = cx.readContent(field);
      if ('uncertain' in content) return content;
      const patterns = pnpm ? pnpmPatterns(content.text) : npmPatterns(content.text);
      if (patterns === null) {
        if (pnpm) return { uncertain: `${file}: a "packages" list we do not read` };
      } else return expand(d, patterns, pnpm);
    }
    if (d === '/') {
      // pnpm without a workspace file takes every package beneath the project (its default `**`); npm and
      // yarn without `workspaces` refuse to run ("No workspaces found"): judged as the project alone.
      return expand(start, pnpm ? ['**'] : [], pnpm);
    }
  }
}

/** One YAML scalar as pnpm-workspace.yaml lists a glob: plain, or quoted without escapes; undefined otherwise. */
function scalar(text: string): string | undefined {
  const t = text.trim();
  const q = t[0];
  if (q === "'" || q === '"') {
    const end = t.indexOf(q, 1);
    if (end < 0 || (q === '"' && t.slice(1, end).includes('\\')) || t.slice(1, end).includes(q))
      return undefined;
    const after = t.slice(end + 1).trim();
    return after === '' || after.startsWith('#') ? t.slice(1, end) : undefined;
  }
  const plain = t.replace(/\s+#.*$/, '');
  return plain === '' || /^[-&*!|>%@`{}[\],#?:'"]/.test(plain) || plain.includes(': ') ? undefined : plain;
}

/** The `packages` globs of pnpm-workspace.yaml ([] without the key); null when written in a form we do not read. */
export function pnpmPatterns(text: string): string[] | null {
  const lines = text.split(/\r?\n/);
  const keys = lines.filter((l) => /^["']?packages["']?\s*:/.test(l));
  if (keys.length === 0) return [];
  if (keys.length > 1) return null;
  const at = lines.indexOf(keys[0]!);
  const rest = keys[0]!.replace(/^["']?packages["']?\s*:\s*/, '').replace(/\s+#.*$/, '');
  if (rest.startsWith('[')) {
    if (!rest.endsWith(']')) return null;
    const items = rest.slice(1, -1).trim();
    if (items === '') return [];
    const out = items.split(',').map(scalar);
    return out.every((s): s is string => s !== undefined) ? out : null;
  }
  if (rest !== '') return null;
  const out: string[] = [];
  for (const line of lines.slice(at + 1)) {
    if (/^\s*(#.*)?$/.test(line)) continue;
    if (!/^\s/.test(line)) break; // the next top-level key
    const item = /^\s+-\s+(.*)$/.exec(line);
    const value = item ? scalar(item[1]!) : undefined;
    if (value === undefined) return null;
    out.push(value);
  }
  return out;
}

/** The `workspaces` globs of a package.json (a list, or `{packages: […]}`); null when it has none or is not JSON. */
export function npmPatterns(text: string): string[] | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  const ws = (json as { workspaces?: unknown } | null)?.workspaces;
  const list = Array.isArray(ws) ? ws : (ws as { packages?: unknown } | undefined)?.packages;
  return Array.isArray(list) && list.every((p) => typeof p === 'string') ? (list as string[]) : null;
}

/** The root and every directory with a manifest the globs match, beneath `root`. */
function expand(root: string, patterns: readonly string[], pnpm: boolean): Workspaces {
  const found = new Set<string>();
  let other: string | undefined;
  const add = (d: string) => {
    if (existsSync(`${d}/package.json`)) found.add(d);
    // pnpm also reads package.yaml and package.json5 manifests, whose scripts we do not read.
    else if (pnpm && (existsSync(`${d}/package.yaml`) || existsSync(`${d}/package.json5`))) other ??= d;
  };
  add(root);
  for (const raw of patterns) {
    if (raw.startsWith('!')) continue; // an exclusion: the superset is judged
    const pattern = posix.normalize(raw.replace(/^\.\//, '')).replace(/\/+$/, '');
    if (pattern.startsWith('/') || pattern === '..' || pattern.startsWith('../'))
      return { uncertain: `workspace glob ${JSON.stringify(raw)} reaches outside the workspace` };
    const parts = pattern.split('/');
    const firstMagic = parts.findIndex((p) => MAGIC.test(p));
    if (firstMagic < 0) {
      add(posix.join(root, pattern));
      continue;
    }
    const base = posix.join(root, ...parts.slice(0, firstMagic));
    // Matched as a superset of what pnpm (tinyglobby) and npm (glob) match: dot names included.
    const glob = new Minimatch(pattern, { dot: true });
    // Without `**`, a match is exactly as deep as the pattern: nothing below that depth is entered.
    const rest = parts.slice(firstMagic);
    const walked = walkDirs(base, root, rest.includes('**') ? Number.POSITIVE_INFINITY : rest.length);
    if ('uncertain' in walked) return walked;
    for (const d of walked.dirs) if (glob.match(posix.relative(root, d))) add(d);
  }
  if (other !== undefined) return { uncertain: `${other} has a package.yaml or package.json5 manifest` };
  return { dirs: [...found].map((d) => literal(d)) };
}

/**
 * Every directory beneath `base` down to `depth` levels (itself included), as the managers' globs see them:
 * node_modules, bower_components and .git left out, symlinked directories followed (each real directory
 * once: a link back up is no loop). Over the bound, or a directory that cannot be listed: uncertain.
 */
function walkDirs(base: string, root: string, depth: number): { dirs: string[] } | { uncertain: string } {
  const dirs: string[] = [];
  let real: string;
  try {
    real = realpathSync(base);
  } catch {
    return { dirs }; // nothing there: the glob matches nothing
  }
  const seen = new Set([real]);
  const stack: [string, string, number][] = [[base, real, 0]];
  while (stack.length > 0) {
    const [d, dReal, level] = stack.pop()!;
    dirs.push(d);
    if (dirs.length > MAX_DIRS)
      return { uncertain: `more than ${MAX_DIRS} directories beneath ${posix.relative(root, base) || '.'}` };
    if (level >= depth) continue;
    let entries: Dirent[];
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return { uncertain: `cannot list ${d}` };
    }
    for (const e of entries) {
      if (SKIP.has(e.name)) continue;
      const path = `${d}/${e.name}`;
      let target: string | undefined;
      if (e.isDirectory()) target = `${dReal}/${e.name}`;
      else if (e.isSymbolicLink()) {
        try {
          target = statSync(path).isDirectory() ? realpathSync(path) : undefined;
        } catch {
          target = undefined; // dangling: no directory
        }
      }
      if (target === undefined || seen.has(target)) continue;
      seen.add(target);
      stack.push([path, target, level + 1]);
    }
  }
  return { dirs };
}
