import { posix } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { readBinaryBounded } from './readBinaryBounded.js';

/** Largest ignore file we read; beyond it the file counts as unreadable (nothing is skipped). */
const MAX_IGNORE_BYTES = 256 * 1024;
/** Most ignore files one check loads; beyond it nothing more is skipped, so the walk judges more, not less. */
const MAX_IGNORE_FILES = 2000;

/**
 * The ignore rules of one worktree, loaded lazily as the policy's walk reaches each directory (a
 * `.gitignore` per directory, `.git/info/exclude` and `core.excludesFile` at the root), with git's
 * precedence: a deeper file overrides a shallower one, and a path beneath an ignored directory is ignored.
 */
export class GitignoreRules {
  private readonly perDir = new Map<string, Ignore | null>();
  private loaded = 0;
  private overBound = false;

  constructor(
    private readonly root: string,
    private readonly rootFiles: readonly string[],
  ) {}

  /** Whether `rel` (relative to the worktree root) is ignored; `false` whenever that cannot be known. */
  ignored(rel: string, isDir: boolean): boolean {
    const parts = rel.split('/');
    for (let i = 1; i < parts.length; i++) {
      if (this.decide(parts.slice(0, i).join('/'), true) === true) return true;
    }
    return this.decide(rel, isDir) === true;
  }

  private decide(rel: string, isDir: boolean): boolean | undefined {
    if (this.overBound) return undefined;
    const parts = rel.split('/');
    let verdict: boolean | undefined;
    // From the lowest precedence (root-level exclude files) to the highest (the deepest .gitignore).
    for (let depth = -1; depth < parts.length; depth++) {
      const dir = depth < 0 ? '\0root' : parts.slice(0, depth).join('/');
      const rules = this.rulesFor(dir);
      if (this.overBound) return undefined;
      if (rules === null) continue;
      const sub = depth <= 0 ? rel : parts.slice(depth).join('/');
      let t: { ignored: boolean; unignored: boolean };
      try {
        t = rules.test(isDir ? `${sub}/` : sub);
      } catch {
        // `ignore` rejects some names (empty, `./x`): nothing is known, so nothing is skipped.
        return undefined;
      }
      if (t.ignored) verdict = true;
      else if (t.unignored) verdict = false;
    }
    return verdict;
  }

  private rulesFor(dir: string): Ignore | null {
    const cached = this.perDir.get(dir);
    if (cached !== undefined) return cached;
    if (++this.loaded > MAX_IGNORE_FILES) {
      this.overBound = true;
      return null;
    }
    const files =
      dir === '\0root' ? this.rootFiles : [posix.join(this.root, dir, '.gitignore')];
    let rules: Ignore | null = null;
    for (const f of files) {
      const buf = readBinaryBounded(f, MAX_IGNORE_BYTES, dir !== '\0root');
      if (buf === null) continue;
      rules ??= ignore();
      rules.add(buf.toString('utf8'));
    }
    this.perDir.set(dir, rules);
    return rules;
  }
}
