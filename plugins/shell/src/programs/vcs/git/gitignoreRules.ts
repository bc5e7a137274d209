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
/** The ignore files that apply in one directory, from the lowest precedence to the highest. */
type Chain = readonly { base: string; rules: Ignore }[];

export class GitignoreRules {
  /** Rules per directory ('' is the root; `\0root` the root-level exclude files). */
  private readonly perDir = new Map<string, Ignore | null | 'unknown'>();
  private readonly chains = new Map<string, Chain | 'unknown'>();
  private readonly dirs = new Map<string, boolean | 'unknown'>();
  private loaded = 0;

  /**
   * @param mayBeWritten whether the line may write this ignore file before git reads it: then its rules
   *   are unknown. Called lazily, during the policy's walk.
   * @param fileIn the ignore file of a directory (relative to the root, '' for the root): git's
   *   `.gitignore`, or npm-packlist's `.npmignore` where there is one.
   */
  constructor(
    private readonly root: string,
    private readonly rootFiles: readonly string[],
    private readonly mayBeWritten: (path: string) => boolean = () => false,
    private readonly fileIn: (dir: string) => string = () => '.gitignore',
  ) {}

  /**
   * Whether `rel` (relative to the worktree root) is ignored: `unknown` when an ignore file on its way may
   * be rewritten by the line, is over the bounds, or a name cannot be tested. Callers take whichever
   * answer makes the walk judge more. Decisions on directories are cached, so a walk costs one rule test
   * per entry and per ignore file in its directory chain.
   */
  ignored(rel: string, isDir: boolean): boolean | 'unknown' {
    const slash = rel.lastIndexOf('/');
    const parent = slash < 0 ? '' : rel.slice(0, slash);
    const up = parent === '' ? false : this.ignoredDir(parent);
    if (up === true) return true;
    const own = this.decide(this.chain(parent), rel, isDir);
    if (own === true) return true;
    return own === 'unknown' || up === 'unknown' ? 'unknown' : false;
  }

  private ignoredDir(dir: string): boolean | 'unknown' {
    let v = this.dirs.get(dir);
    if (v === undefined) {
      v = this.ignored(dir, true);
      this.dirs.set(dir, v);
    }
    return v;
  }

  /** Later matches override earlier ones; a negation re-includes. */
  private decide(chain: Chain | 'unknown', rel: string, isDir: boolean): boolean | 'unknown' {
    if (chain === 'unknown') return 'unknown';
    let verdict = false;
    for (const { base, rules } of chain) {
      const sub = base === '' ? rel : rel.slice(base.length + 1);
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

  /** The ignore files in force in `dir`: its ancestors' and its own. */
  private chain(dir: string): Chain | 'unknown' {
    const cached = this.chains.get(dir);
    if (cached !== undefined) return cached;
    let out: Chain | 'unknown';
    const own = this.rulesFor(dir);
    if (dir === '') {
      const top = this.rulesFor('\0root');
      out =
        top === 'unknown' || own === 'unknown'
          ? 'unknown'
          : [...(top ? [{ base: '', rules: top }] : []), ...(own ? [{ base: '', rules: own }] : [])];
    } else {
      const slash = dir.lastIndexOf('/');
      const up = this.chain(slash < 0 ? '' : dir.slice(0, slash));
      out = up === 'unknown' || own === 'unknown' ? 'unknown' : own ? [...up, { base: dir, rules: own }] : up;
    }
    this.chains.set(dir, out);
    return out;
  }

  private rulesFor(dir: string): Ignore | null | 'unknown' {
    const cached = this.perDir.get(dir);
    if (cached !== undefined) return cached;
    let rules: Ignore | null | 'unknown' = null;
    const files = dir === '\0root' ? this.rootFiles : [posix.join(this.root, dir, this.fileIn(dir))];
    if (++this.loaded > MAX_IGNORE_FILES || files.some((f) => this.mayBeWritten(f))) rules = 'unknown';
    else {
      for (const f of files) {
        const buf = readBinaryBounded(f, MAX_IGNORE_BYTES, dir !== '\0root');
        if (buf === null) continue;
        rules ??= ignore();
        rules.add(buf.toString('utf8'));
      }
    }
    this.perDir.set(dir, rules);
    return rules;
  }
}
