import { existsSync } from 'node:fs';
import { posix } from 'node:path';
import type { CommandContext } from '../../../effects/extractTypes.js';
import { literal } from '../../spec.js';
import { type ConfigEntry, configValue, parseConfig } from './gitConfig.js';
import { parseIndex, type TrackedSet } from './gitIndex.js';
import { GitignoreRules } from './gitignoreRules.js';
import type { GitRepo } from './gitRepo.js';
import { lineMayWrite } from './lineWrites.js';
import { readBinaryBounded } from './readBinaryBounded.js';

/** Largest index we parse at check time (≈ 150,000 entries); beyond it no tracked filter is used. */
const MAX_INDEX_BYTES = 16 * 1024 * 1024;

/** What git will read of a repository's own state, loaded once per command. */
export interface RepoState extends GitRepo {
  /** Where shared state lives (config, hooks, objects): differs from `gitDir` in a linked worktree. */
  commonDir: string;
  config: ConfigEntry[];
  /** Set when the config could not be read for certain (the caller is then uncertain). */
  configUncertain?: string;
  tracked(): TrackedSet | null;
  /**
   * Why `tracked()` is null because of this line: an earlier command may write the index (code nobody
   * analysed, a copy over it), so which files are tracked when git runs is not known. Undefined when the
   * index is read (or too large to parse, which is no news the line brings).
   */
  trackedChanged(): string | undefined;
  /**
   * The ignore rules. `ownWrites`: the command itself writes beneath the worktree, so the line's writes
   * seen during the walk include its own — then the root's ignore files are checked now (before its own
   * accesses exist) and an existing nested `.gitignore` counts as unknown.
   */
  ignore(ownWrites?: boolean): GitignoreRules | null;
  /** Whether `name` may name a ref or revision (a branch, tag or remote branch, `HEAD~1`, a hash). */
  hasRef(name: string): boolean;
}

/** Loads config (bounded, refusing a file this line writes first) and prepares the lazy index and ignore rules. */
export function loadRepoState(cx: CommandContext, repo: GitRepo): RepoState {
  let commonDir = repo.gitDir;
  const common = readBinaryBounded(`${repo.gitDir}/commondir`, 4096);
  if (common !== null) commonDir = posix.resolve(repo.gitDir, common.toString('utf8').trim());
  const configPath = `${commonDir}/config`;
  let config: ConfigEntry[] = [];
  let configUncertain: string | undefined;
  if (existsSync(configPath) || lineMayWrite(cx, configPath)) {
    const r = cx.readContent(literal(configPath), 256 * 1024);
    if ('uncertain' in r) configUncertain = r.uncertain;
    else config = parseConfig(r.text);
  }
  const sha256 = configValue(config, 'extensions.objectformat')?.toLowerCase() === 'sha256';
  let tracked: TrackedSet | null | undefined;
  let ignore: GitignoreRules | null | undefined;
  return {
    ...repo,
    commonDir,
    config,
    hasRef: (name) => hasRef(repo.gitDir, commonDir, name),
    configUncertain,
    trackedChanged() {
      return this.tracked() === null && lineMayWrite(cx, `${repo.gitDir}/index`)
        ? `${repo.gitDir}/index may be written by an earlier command of the line: which files are tracked is not known`
        : undefined;
    },
    tracked() {
      if (tracked !== undefined) return tracked;
      const indexPath = `${repo.gitDir}/index`;
      if (lineMayWrite(cx, indexPath)) tracked = null;
      else if (!existsSync(indexPath)) tracked = { files: new Set(), dirs: new Set(), submodules: [] };
      else {
        const buf = readBinaryBounded(indexPath, MAX_INDEX_BYTES);
        tracked = buf === null ? null : parseIndex(buf, sha256 ? 32 : 20);
      }
      return tracked;
    },
    ignore(ownWrites = false) {
      if (ignore !== undefined) return ignore;
      const root = repo.worktree;
      if (root === null) {
        ignore = null;
        return ignore;
      }
      // Lowest precedence first: core.excludesFile, then .git/info/exclude (gitignore(5)).
      const rootFiles: string[] = [];
      const excludes = configValue(config, 'core.excludesfile');
      if (excludes?.startsWith('/')) rootFiles.push(excludes);
      rootFiles.push(`${commonDir}/info/exclude`);
      const rootGitignore = `${root}/.gitignore`;
      const early = new Set([...rootFiles, rootGitignore].filter((f) => lineMayWrite(cx, f)));
      const mayBeWritten = (f: string): boolean => {
        if (f === rootGitignore || rootFiles.includes(f)) return early.has(f);
        return ownWrites ? existsSync(f) : lineMayWrite(cx, f);
      };
      ignore = new GitignoreRules(root, rootFiles, mayBeWritten);
      return ignore;
    },
  };
}

/**
 * Whether git could read `name` as a revision rather than a path: revision syntax (`HEAD~1`, `a..b`, `@{u}`),
 * something that looks like a hash, or a ref that exists loose or in packed-refs. When unsure: a ref (the
 * caller then judges the wider access).
 */
function hasRef(gitDir: string, commonDir: string, name: string): boolean {
  if (/[~^@:{}]|\.\./.test(name) || /^[0-9a-f]{4,64}$/i.test(name) || name === 'HEAD' || name === '-')
    return true;
  for (const dir of new Set([gitDir, commonDir]))
    for (const prefix of ['', 'refs/', 'refs/heads/', 'refs/tags/', 'refs/remotes/'])
      if (existsSync(`${dir}/${prefix}${name}`)) return true;
  const packed = readBinaryBounded(`${commonDir}/packed-refs`, 4 * 1024 * 1024);
  if (packed === null) return existsSync(`${commonDir}/packed-refs`);
  const text = packed.toString('utf8');
  return ['refs/heads/', 'refs/tags/', 'refs/remotes/', ''].some((p) => text.includes(` ${p}${name}\n`));
}
