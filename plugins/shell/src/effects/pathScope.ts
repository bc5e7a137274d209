import { posix } from 'node:path';
import { type CallContext, type ResolvedPath, resolvePath } from '@toolgate/core';
import { readBinaryBounded } from '../programs/vcs/git/readBinaryBounded.js';
import type { Field } from '../state/expandWord.js';
import { union, writableVars } from '../state/shellState.js';
import { tildeMeaning } from '../state/tildePrefix.js';
import type { AccessSink } from './accessSink.js';
import type { PlannedChanges } from './plannedChanges.js';
import { readBounded, writtenBefore } from './readContent.js';
import type { ShellScope } from './shellScope.js';

/** Arguments are C strings: the program sees them cut at the first NUL (`$'a\x00b'` is `a`). */
export function cutAtNul(value: string): string {
  const nul = value.indexOf('\0');
  return nul === -1 ? value : value.slice(0, nul);
}

/**
 * Where paths lead from here: core's resolver against the cwd the walk has reached (memoised for this
 * extraction), the logical cwd `cd` keeps, and the files whose content the analysis may read.
 */
export class PathScope {
  private readonly memo = new Map<string, ResolvedPath>();
  // Directories found real during this extraction (one call): later paths in them cost one lstat.
  private readonly realDirs = new Set<string>();

  constructor(
    private readonly ctx: CallContext,
    private readonly scope: ShellScope,
    private readonly sink: AccessSink,
    private readonly planned: PlannedChanges,
  ) {}

  resolve(raw: string, cwd: string, tilde: boolean, followFinal: boolean): ResolvedPath {
    const value = cutAtNul(raw);
    if (value === '')
      return {
        raw,
        expanded: '',
        lexical: cwd,
        real: null,
        certain: false,
        reason: 'empty path',
        hops: [],
        exists: false,
      };
    // Memoised for this extraction only: a link may change between two calls.
    const key = `${cwd}\0${tilde ? 1 : 0}${followFinal ? 1 : 0}\0${value}`;
    let hit = this.memo.get(key);
    if (!hit) {
      hit = resolvePath(
        value,
        { ...this.ctx, cwd },
        { tilde, vars: false, followFinal, realDirs: this.realDirs },
      );
      this.memo.set(key, hit);
    }
    return hit;
  }

  /** The one directory `f` is relative to here; `null` when the cwd may be more than one place. */
  onlyCwd(f: Field): string | null {
    if (f.value.startsWith('/') || f.tilde) return this.ctx.cwd;
    return this.scope.state.cwds.length === 1 ? (this.scope.state.cwds[0] ?? null) : null;
  }

  exists(f: Field): boolean {
    if (f.uncertain !== undefined || f.value === '' || f.pipe) return false;
    const cwd = this.scope.state.cwds[0];
    if (cwd == null) return false;
    try {
      return this.resolve(f.value, cwd, f.tilde, true).exists;
    } catch {
      return false;
    }
  }

  resolveDir(f: Field): string | null {
    const cwd =
      f.value.startsWith('/') || f.tilde
        ? this.ctx.cwd
        : this.scope.state.cwds.length === 1
          ? this.scope.state.cwds[0]
          : null;
    if (cwd == null || f.uncertain !== undefined) return null;
    const r = this.resolve(f.value, cwd, f.tilde, true);
    return r.certain ? r.real : null;
  }

  readContent(
    f: Field,
    maxBytes = 256 * 1024,
    skip?: readonly string[],
  ): { text: string; path: string } | { uncertain: string } {
    const at = this.contentPath(f, skip);
    return typeof at === 'string' ? readBounded(at, maxBytes) : at;
  }

  /** `readContent` for a binary file (an archive): its bytes, or why they cannot be known. */
  readBytes(f: Field, maxBytes: number): { bytes: Buffer; path: string } | { uncertain: string } {
    const at = this.contentPath(f);
    if (typeof at !== 'string') return at;
    const bytes = readBinaryBounded(at, maxBytes);
    return bytes === null
      ? { uncertain: `cannot read ${at} (or it is larger than ${maxBytes} bytes)` }
      : { bytes, path: at };
  }

  /** The real path of a file whose content the analysis reads, or why it cannot be read with certainty. */
  private contentPath(f: Field, skip?: readonly string[]): string | { uncertain: string } {
    if (f.uncertain !== undefined) return { uncertain: f.uncertain };
    if (f.pipe || f.under || f.glob >= 0 || f.value === '')
      return { uncertain: `${f.raw} is not one known file` };
    const cwd = this.onlyCwd(f);
    if (cwd == null) return { uncertain: `${f.raw} is relative to an unknown directory` };
    const r = this.resolve(f.value, cwd, f.tilde, true);
    if (!r.certain || r.real === null) return { uncertain: r.reason ?? `${f.raw} cannot be resolved` };
    if (writtenBefore(this.sink.accesses, r.real, false, skip))
      return { uncertain: `${f.raw} may be written by this command line before it is read` };
    return r.real;
  }

  /**
   * Whether an earlier command of the line may write `f` (git's writes into its git dir included); `true`
   * when that cannot be told.
   */
  writtenEarlier(f: Field, skip?: readonly string[]): boolean {
    const cwd = this.onlyCwd(f);
    if (cwd == null || f.uncertain !== undefined) return true;
    const r = this.resolve(f.value, cwd, f.tilde, true);
    if (!r.certain || r.real === null) return true;
    return writtenBefore(this.sink.accesses, r.real, true, skip);
  }

  /** Whether this line writes `f` itself (a path write, or a write whose target is not known). */
  writtenAsFile(f: Field): boolean {
    const cwd = this.onlyCwd(f);
    if (cwd == null) return true;
    const r = this.resolve(f.value, cwd, f.tilde, true);
    if (!r.certain || r.real === null) return true;
    return this.sink.accesses.some(
      (a) => a.op === 'write' && (!a.certain || (a.scope === 'path' && a.realPath === r.real)),
    );
  }

  /**
   * Changes the cwd of what follows (`cd`, `pushd`); `null` makes it unknown. `physical`: `cd -P`; `false`
   * `cd -L`; `undefined` logical unless a `set -P` may be on (then both).
   */
  chdir(target: Field | null, cdpath = false, physical?: boolean): void {
    const scope = this.scope;
    // A tilde prefix reads $HOME, $PWD, $OLDPWD as the script left them (`HOME=/etc cd`, `HOME=/x; cd ~/y`),
    // before cd changes OLDPWD.
    let targets: Field[] | null = target === null ? null : [target];
    if (target?.tilde) {
      if (scope.envMode !== undefined && /^~(\/|$)/.test(target.value)) targets = null;
      else {
        const t = tildeMeaning(target.value, scope.state.vars, scope.lookup, scope.cdHappened);
        if (t.kind === 'uncertain') targets = null;
        else if (t.kind === 'literal') targets = [{ ...target, tilde: false }];
        else if (t.kind === 'cwd') targets = [{ ...target, value: `.${t.rest}`, tilde: false }];
        else if (t.kind === 'values') targets = t.values.map((v) => ({ ...target, value: v, tilde: false }));
      }
    }
    scope.cdHappened = true;
    // cd sets OLDPWD to the old $PWD and PWD to where it lands (the tracked cwd, read through lookup).
    const oldPwd = scope.lookup('PWD');
    const vars = writableVars(scope.state);
    vars.set('OLDPWD', oldPwd === undefined ? null : oldPwd);
    vars.delete('PWD');
    const unknown = (): void => {
      scope.state.cwds = [null];
      scope.state.pwds = undefined;
    };
    if (targets === null) {
      unknown();
      return;
    }
    const modes = physical === undefined ? (scope.physicalMaybe ? [false, true] : [false]) : [physical];
    const next: (string | null)[] = [];
    const pwds = new Map<string, string>();
    for (const f of targets) {
      // `cd name` searches $CDPATH first: where it lands is not known.
      if (
        cdpath &&
        !/^(\/|\.\.?(\/|$))/.test(f.value) &&
        !f.tilde &&
        (scope.lookup('CDPATH') ?? ['']).some((p) => p !== '')
      ) {
        unknown();
        return;
      }
      if (f.uncertain !== undefined || f.glob >= 0 || f.value === '-') {
        unknown();
        return;
      }
      for (const mode of modes) this.chdirOne(f, mode, next, pwds);
    }
    scope.state.cwds = union([], next);
    // Only the cwds reached keep a logical path; one reached both ways has an unknown one.
    for (const [real, logical] of pwds) if (logical === real) pwds.delete(real);
    scope.state.pwds = pwds.size > 0 ? pwds : undefined;
  }

  private chdirOne(
    target: Field,
    physical: boolean,
    next: (string | null)[],
    pwds: Map<string, string>,
  ): void {
    const scope = this.scope;
    const absolute = target.value.startsWith('/') || target.tilde;
    const value = cutAtNul(target.value);
    for (const cwd of absolute ? [this.ctx.cwd] : scope.state.cwds) {
      if (cwd === null || value === '') {
        next.push(null);
        continue;
      }
      // `cd` is logical (bash and dash without -P): `..` removes the previous component of $PWD as
      // written, so `cd link && cd ..` returns beside the link, where the kernel's `..` would not. Resolve
      // the lexical path from the logical cwd. `cd -P` (or after `set -P`) resolves as the kernel does, and
      // $PWD is the real path then: a later `cd ..` goes to the real parent.
      const base = absolute ? '/' : (scope.state.pwds?.get(cwd) ?? cwd);
      if (base === '' && !physical) {
        next.push(null);
        continue;
      }
      const lexical = physical || target.tilde ? null : posix.resolve(base, value);
      const r =
        lexical === null
          ? this.resolve(target.value, cwd, target.tilde, true)
          : this.resolve(lexical, this.ctx.cwd, false, true);
      if (!r.certain || r.real === null) {
        next.push(null);
        continue;
      }
      const logical = lexical ?? r.real;
      const known = pwds.get(r.real);
      // The same directory reached by two written paths: which one $PWD holds is not known.
      pwds.set(r.real, known === undefined || known === logical ? logical : '');
      next.push(
        this.planned.cwd(r.real, (p) => {
          const via = this.resolve(p, this.ctx.cwd, false, true);
          return via.certain ? via.real : null;
        }),
      );
    }
  }
}
