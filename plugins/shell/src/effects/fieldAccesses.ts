import { type CallContext, createAccess, type Op, uncertainAccess } from '@toolgate/core';
import type { Field } from '../state/expandWord.js';
import { tildeMeaning } from '../state/tildePrefix.js';
import type { AccessSink } from './accessSink.js';
import type { EmitOptions } from './commandContext.js';
import { globFilter, STREAM_DEVICES } from './globFilter.js';
import { cutAtNul, type PathScope } from './pathScope.js';
import type { PlannedPaths } from './plannedPaths.js';
import type { ShellScope } from './shellScope.js';

/**
 * Turns a field into the accesses it makes: a tilde read from the shell's state, a glob judged as its static
 * directory filtered to the matches, a relative path once per possible cwd, a path through a link the line
 * plans judged there as well.
 */
export class FieldAccesses {
  constructor(
    private readonly ctx: CallContext,
    private readonly sink: AccessSink,
    private readonly scope: ShellScope,
    private readonly paths: PathScope,
    private readonly planned: PlannedPaths,
  ) {}

  /** `origin`: after the prefix (`cat:argv`, `redirect`). */
  emit(f: Field, op: Op, origin: string, o: EmitOptions = {}): void {
    if (f.pipe) return;
    if (f.under) {
      if (f.under.length === 0) this.sink.uncertain(f.raw, op, origin, 'the paths it stands for are unknown');
      f.under.forEach((root, k) => {
        // The program's own filter and the paths' cannot both be honoured by one access: then neither.
        const mine = f.underFilters?.[k];
        const filter = mine && o.filter ? undefined : (mine ?? o.filter);
        const { filter: _drop, ...rest } = o;
        // Each path is handed to the program by name: unless it acts on a link itself (rm), it opens a
        // link's target — a link found beneath is judged where it leads (and a linked directory's contents
        // with it: more than the program reaches, never less). No link among them (find -type f): none.
        const noLinks = (mine as { printsLinks?: boolean } | undefined)?.printsLinks === false;
        const links = o.followFinal === false || noLinks ? {} : { followLinks: true };
        this.emit(root, op, origin, { ...rest, ...links, scope: 'subtree', ...(filter ? { filter } : {}) });
      });
      return;
    }
    const full = `${this.sink.prefix}:${origin}`;
    if (f.uncertain !== undefined) {
      this.sink.push(uncertainAccess(f.raw || '?', op, full, f.uncertain, o.scope ?? 'path'));
      return;
    }
    let value = f.value;
    let tilde = f.tilde;
    // `~` of a command run as another user (sudo bash -c 'cat ~/x') is that user's home.
    if (tilde && this.scope.envMode !== undefined && /^~(\/|$)/.test(value)) {
      this.sink.push(
        uncertainAccess(
          f.raw,
          op,
          full,
          '~ is the home of another user or environment here',
          o.scope ?? 'path',
        ),
      );
      return;
    }
    if (tilde) {
      // `~`, `~+`, `~-` read $HOME, $PWD, $OLDPWD as this script left them.
      const t = tildeMeaning(value, this.scope.state.vars, this.scope.lookup, this.scope.cdHappened);
      if (t.kind === 'uncertain') {
        this.sink.push(uncertainAccess(f.raw, op, full, t.reason, o.scope ?? 'path'));
        return;
      }
      if (t.kind === 'values') {
        for (const v of t.values) {
          const glob = f.glob >= 0 ? f.glob + v.length - value.length : -1;
          this.emit({ ...f, value: v, tilde: false, glob }, op, origin, o);
        }
        return;
      }
      if (t.kind === 'cwd') {
        value = `.${t.rest}`;
        tilde = false;
      } else if (t.kind === 'literal') tilde = false;
    }
    let scope = o.scope ?? 'path';
    let followFinal = o.followFinal ?? true;
    let filter = o.filter;
    let followLinks = o.followLinks === true;
    if (f.glob >= 0) {
      // A glob touches whatever it matches: judge its static directory as a subtree, filtered to the matches.
      const slash = value.lastIndexOf('/', f.glob);
      const pattern = value.slice(slash + 1);
      value = slash === -1 ? '.' : slash === 0 ? '/' : value.slice(0, slash);
      // A filter the program brings (`grep -r --include`) and the glob's cannot both be honoured by one
      // access: keep neither (every entry judged) rather than one that lets the other's matches through.
      filter =
        o.filter === undefined && pattern !== '' ? globFilter(pattern, this.scope.globOptions) : undefined;
      // The program opens what the glob matched, following a matched symlink (`cat *.md` reads through
      // `x.md -> ~/.ssh/id_rsa`) unless it acts on the link itself (`rm *`).
      if (followFinal) followLinks = true;
      scope = 'subtree';
      followFinal = true;
    } else if (STREAM_DEVICES.has(value) && scope === 'path') return;
    value = cutAtNul(value);
    if (value === '') return;
    // Core substitutes `<workspace>`; in a shell word it is a literal file name.
    if (value.startsWith('<workspace>')) value = `./${value}`;
    const absolute = value.startsWith('/') || tilde;
    const cwds = absolute ? [this.ctx.cwd] : this.scope.state.cwds;
    for (const cwd of cwds) {
      if (cwd === null) {
        this.sink.push(
          uncertainAccess(f.raw, op, full, 'relative path after a cd to an unknown directory', scope),
        );
        continue;
      }
      const resolved = this.paths.resolve(value, cwd, tilde, followFinal);
      const access = createAccess(
        value,
        op,
        { ...this.ctx, cwd },
        { origin: full, scope, followFinal },
        resolved,
      );
      access.raw = f.raw;
      if (scope === 'subtree') {
        if (followLinks) access.followLinks = true;
        if (filter) access.filter = filter;
      }
      if (o.runs !== undefined) access.runs = o.runs;
      if (o.removes) this.sink.removals.add(access);
      if (o.unknownNames !== undefined && scope === 'subtree') access.unknownContents = o.unknownNames;
      this.sink.push(access);
      if (!this.planned.planned.empty) this.planned.through(access, f.raw);
    }
  }

  /**
   * The shell itself reads the names of a glob's directory to expand it, whatever the command then does
   * with the matches: `echo ~/.ssh/*` prints the names in ~/.ssh (strace: getdents64 of it), exactly what
   * `ls ~/.ssh` is denied for. A list of the static directory; of everything beneath it when a later
   * segment of the pattern is a glob too (`src/?/x*` lists each directory it matches on the way).
   */
  globListing(f: Field): void {
    if (f.uncertain !== undefined || f.under || f.pipe) return;
    const slash = f.value.lastIndexOf('/', f.glob);
    const dir = slash === -1 ? '.' : slash === 0 ? '/' : f.value.slice(0, slash);
    // A deeper pattern: the subtree of the static directory filtered by the pattern, as its read would be.
    if (f.value.indexOf('/', f.glob) !== -1) this.emit(f, 'list', 'glob');
    else this.emit({ ...f, value: dir, glob: -1 }, 'list', 'glob');
  }
}
