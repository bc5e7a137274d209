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
  private readonly perDir = new Map<string, Ignore | null | 'unknown'>();
  private loaded = 0;
  private overBound = false;

  /**
   * @param mayBeWritten whether the line may write this ignore file before git reads it: then its rules
   *   are unknown. Called lazily, during the policy's walk.
   */
  constructor(
    private readonly root: string,
    private readonly rootFiles: readonly string[],
    private readonly mayBeWritten: (path: string) => boolean = () => false,
  ) {}

  /**
   * Whether `rel` (relative to the worktree root) is ignored: `unknown` when an ignore file on its way may
   * be rewritten by the line, is over the bounds, or a name cannot be tested. Callers take whichever
   * answer makes the walk judge more.
   */
  ignored(rel: string, isDir: boolean): boolean | 'unknown' {
    const parts = rel.split('/');
    let unknown = false;
    for (let i = 1; i < parts.length; i++) {
      const d = this.decide(parts.slice(0, i).join('/'), true);
      if (d === true) return true;
      if (d === 'unknown') unknown = true;
    }
    const d = this.decide(rel, isDir);
    if (d === true || d === 'unknown') return d;
    return unknown ? 'unknown' : false;
  }

  private decide(rel: string, isDir: boolean): boolean | 'unknown' | undefined {
    if (this.overBound) return 'unknown';
    const parts = rel.split('/');
    let verdict: boolean | undefined;
    // From the lowest precedence (root-level exclude files) to the highest (the deepest .gitignore).
    for (let depth = -1; depth < parts.length; depth++) {
      const dir = depth < 0 ? '\0root' : parts.slice(0, depth).join('/');
      const rules = this.rulesFor(dir);
      if (this.overBound || rules === 'unknown') return 'unknown';
      if (rules === null) continue;
      const sub = depth <= 0 ? rel : parts.slice(depth).join('/');
      let t: { ignored: boolean; unignored: boolean };
      try {
        t = rules.test(isDir ? `${sub}/` : sub);
      } catch {
        // `ignore` rejects some names (empty, `./x`): nothing is known.
        return 'unknown';
      }
      if (t.ignored) verdict = true;
      else if (t.unignored) verdict = false;
    }
    return verdict;
  }

  private rulesFor(dir: string): Ignore | null | 'unknown' {
    const cached = this.perDir.get(dir);
    if (cached !== undefined) return cached;
    if (++this.loaded > MAX_IGNORE_FILES) {
      this.overBound = true;
      return null;
    }
    const files = dir === '\0root' ? this.rootFiles : [posix.join(this.root, dir, '.gitignore')];
    let rules: Ignore | null = null;
    if (files.some((f) => this.mayBeWritten(f))) {
      this.perDir.set(dir, 'unknown');
      return 'unknown';
    }
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
