import { posix } from 'node:path';
import {
  type Access,
  type CallContext,
  createAccess,
  expandPath,
  isWithin,
  type Op,
  type ResolvedPath,
  resolvePath,
  type SubtreeFilter,
  uncertainAccess,
} from '@toolgate/core';
import { BudgetExceeded, tick } from '../lex/budget.js';
import { findMetacharacters } from '../lex/findMetacharacters.js';
import { ShellParseError } from '../lex/parseError.js';
import type { Node, Redirect, Script, WordRef } from '../parse/ast.js';
import { parseScript } from '../parse/parseScript.js';
import { shellBuiltins } from '../programs/builtins/builtins.js';
import { unsplittableBeneath, XARGS_SPLITS } from '../programs/files/xargsNames.js';
import { commandTable } from '../programs/table.js';
import { keepsLines } from '../programs/text/lineFilters.js';
import { readBinaryBounded } from '../programs/vcs/git/readBinaryBounded.js';
import {
  type Expanded,
  expandAssignment,
  expandWord,
  type Field,
  fieldAsValue,
  heredocSubstitutions,
  type Lookup,
  type Nested,
} from '../state/expandWord.js';
import {
  cloneState,
  type FuncDef,
  merge,
  mergeVar,
  type ShellState,
  union,
  type VarValue,
  widen,
  writableFuncs,
  writableVars,
} from '../state/shellState.js';
import { tildeMeaning } from '../state/tildePrefix.js';
import { arithmetic, type CodeSink, codeInArgv } from './codeInData.js';
import { CommandCx } from './commandCx.js';
import type { CommandContext, EmitOptions, ExtractOptions, PrintedPaths } from './extractTypes.js';
import { type GlobOptions, globFilter, STREAM_DEVICES } from './globFilter.js';
import { BASH_BUILTINS, lookupInPath } from './pathLookup.js';
import { PlannedChanges } from './plannedChanges.js';
import { DEFAULT_PATH, findProgram } from './programIdentity.js';
import { readBounded, writtenBefore } from './readContent.js';
import { unknownCommand } from './unknownCommand.js';

const MAX_ACCESSES = 20_000;

/** One command of a pipeline: the paths its stdin carries, if known, and those it prints. */
interface PipeStage {
  node: Node;
  input?: PrintedPaths;
  output?: PrintedPaths;
  take?: PipeTake;
}

/** Paths a command took from a pipe as its operands, split as xargs splits them. */
interface PipeTake {
  /** The real directories the paths lie beneath. */
  roots: readonly string[];
  /** Accesses `[from, to)` are the taking command's own. */
  from: number;
  to: number;
  /** The printing command's own accesses (git's index refresh writes no name it prints). */
  printer?: readonly [number, number];
}

const INPUT_OPS = new Set(['<', '<>', '<&', '<<', '<<<']);

/** A word that is one variable alone: `$f`, `"$f"`, `${f}`, `"${f}"`. */
const PATH_VAR = /^"?\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))"?$/;

/**
 * The script came from our own parser, or holds no `N>&M`: bash-parser reads such redirects masked (it
 * misreads them), so in its tree a `2>&1` is missing.
 */
function exactRedirects(script: Script): boolean {
  return script.fast || !/[<>]&\s*[0-9-]/.test(script.src);
}

/** A stage that is one simple command reading the pipe (no `<` of its own). */
function readsPipe(n: Node): boolean {
  return n.t === 'cmd' && !n.redirects.some((r) => INPUT_OPS.has(r.op) && (r.fd ?? 0) === 0);
}

/**
 * A stage that is one simple command whose stdout alone goes down the pipe: redirects only of input or of
 * another descriptor to a file (`2>/dev/null`), never one that joins stderr to stdout (`2>&1`).
 */
function printsToPipe(n: Node): boolean {
  return (
    n.t === 'cmd' &&
    n.redirects.every((r) =>
      INPUT_OPS.has(r.op) ? (r.fd ?? 0) === 0 : r.fd !== undefined && r.fd !== 1 && !r.op.includes('&'),
    )
  );
}
const INTEGER_DECL = new Set(['declare', 'typeset', 'local', 'export', 'readonly']);
const BIN_DIRS = new Set(['/bin', '/usr/bin', '/usr/local/bin', '/sbin', '/usr/sbin', '/usr/local/sbin']);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const PLAIN = /^[A-Za-z0-9_/.,:=+%@^-]+$/;
const DANGEROUS =
  /^(IFS|CDPATH|LD_[A-Z_]+|DYLD_[A-Z_]+|BASH_ENV|ENV|PROMPT_COMMAND|SHELLOPTS|BASHOPTS|GLOBIGNORE|BASH_FUNC_.*|PS4|GIT_[A-Z_]*(SSH|COMMAND|PAGER|EDITOR|ASKPASS|EXEC_PATH|DIR|WORK_TREE|CONFIG[A-Z_]*|EXTERNAL_DIFF)|SSH_ASKPASS|PAGER|EDITOR|VISUAL|LESSOPEN|LESSCLOSE|MANPAGER|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|NODE_OPTIONS|NODE_PATH|PERL5OPT|PERL5LIB|PERLLIB|RUBYOPT|RUBYLIB|TMPDIR)$/;

function cutAtNul(value: string): string {
  const nul = value.indexOf('\0');
  return nul === -1 ? value : value.slice(0, nul);
}

const filterIds = new WeakMap<SubtreeFilter, number>();
let nextFilterId = 1;
/** A number per filter object, for telling accesses apart by the filter they carry. */
function filterId(f: SubtreeFilter | undefined): number {
  if (f === undefined) return 0;
  let id = filterIds.get(f);
  if (id === undefined) {
    id = nextFilterId++;
    filterIds.set(f, id);
  }
  return id;
}

export class Analyser {
  readonly accesses: Access[] = [];
  readonly unknown: string[] = [];
  /** Metacharacters of nested scripts (`bash -c '$(…)'`), for the strict dialect. */
  readonly metacharacters: string[] = [];
  private readonly seen = new Set<string>();
  /** Which command of the line emitted each access (`unknownContents` ignores a command's own writes). */
  readonly commandOf = new Map<Access, number>();
  /** Accesses of commands whose order against the rest is not fixed (loop bodies, pipeline parts, `&`). */
  readonly unordered = new Set<Access>();
  /** Writes that only remove what they name (`rm`, `rmdir`): they cannot bring new names into a subtree. */
  readonly removals = new Set<Access>();
  private unorderedDepth = 0;
  private commandSeq = 0;
  private readonly planned = new PlannedChanges();
  private cdHappened = false;
  /** Set while analysing a command run as another user or with an emptied environment. */
  private envMode: 'other-user' | 'clean' | undefined;
  private readonly memo = new Map<string, ResolvedPath>();
  // Directories found real during this extraction (one call): later paths in them cost one lstat.
  private readonly realDirs = new Set<string>();
  private readonly defs = new Map<Node, FuncDef>();
  private readonly exportedDefs = new Map<FuncDef, FuncDef>();
  /** Functions being called now: a recursive call is not unrolled. */
  private readonly calling = new Set<FuncDef>();
  /** Real cwd → the logical path `cd` reached it by, where they differ (`''`: more than one). */
  private readonly logical = new Map<string, string>();
  /** Variables declared integer (`declare -i`): what is assigned to them is evaluated as arithmetic. */
  private readonly integers = new Set<string>();
  /** Set while analysing code a POSIX sh may run (`sh -c`): `((…))` is also read as nested subshells. */
  posix = false;
  /** The pipeline stage being analysed: what its stdin carries and what its command prints. */
  private stage: PipeStage | undefined;
  /** The stage whose own command is running now (not a command nested in its words or in a script). */
  private activeStage: PipeStage | undefined;
  /**
   * Names this line defines as aliases: a shell that expands aliases (`shopt -s expand_aliases`, which an
   * assistant's shell snapshot may set) runs the alias's text for a later command of that name.
   */
  readonly aliases = new Set<string>();
  /** What a pipeline's last command prints, when it is paths of a known set. */
  private readonly pipeOuts = new WeakMap<Node, PrintedPaths>();
  /** Set while a `$(…)` that is a whole word runs: what its script prints, when it is known paths. */
  private capture: { printed?: PrintedPaths } | undefined;
  /**
   * Variables that hold one of a set of printed paths (`for f in $(git ls-files)`, `… | while read -r f`):
   * `"$f"` stands for those paths while the variable keeps that value (any assignment forgets it).
   */
  private readonly pathVars = new Map<string, Field>();
  /** The `read -r NAME` of a `while` loop fed printed paths by its pipe: NAME then holds one of them. */
  private readerClause: { node: Node; name: string; paths: Field } | undefined;
  /** The script being analysed came from our own parser, whose redirects are exact. */
  private exactTree = true;
  /** The file a running command's stdin is redirected from (`patch -p1 < fix.diff`), when it is plain. */
  private stdinRedirect: { redirects: readonly Redirect[]; src: string } | undefined;
  /** Which command printed a pipe's paths: its own accesses `[from, to)`. */
  private readonly printers = new WeakMap<PrintedPaths, readonly [number, number]>();
  /** Paths taken from pipes and split at blanks (checked against the line's writes at the end). */
  private readonly takes: PipeTake[] = [];
  /** One frame per function being called: the values its `local` variables hid. */
  private readonly locals: Map<string, VarValue | undefined>[] = [];
  private state: ShellState;
  readonly maxDepth: number;
  private readonly prefix: string;

  constructor(
    private readonly ctx: CallContext,
    private readonly options: ExtractOptions,
    cwd: string | null,
  ) {
    this.state = { cwds: [cwd], vars: new Map(), funcs: new Map(), ownVars: true, ownFuncs: true };
    this.maxDepth = options.maxDepth ?? 8;
    this.prefix = options.originPrefix ?? 'shell';
  }

  // ---------- accesses ----------

  /** Records an access once; `final`: the closing access of an analysis, exempt from the size bound. */
  push(a: Access, final = false): void {
    // The walk's filter and link-following are part of what an access means: an unfiltered walk is not a
    // duplicate of a filtered one (`find . -name x -exec cat {} ; -o -exec cat {} ;` reaches everything).
    const walk = a.scope === 'subtree' ? `\0${filterId(a.filter)}\0${a.followLinks ? 1 : 0}` : '';
    const key = `${a.op}\0${a.scope}\0${a.path}\0${a.realPath}\0${a.origin}\0${a.certain}\0${a.onLink ? 1 : 0}${walk}`;
    if (this.seen.has(key)) return;
    // A size bound beside the time bound: past it the answer is uncertain anyway.
    if (this.seen.size >= MAX_ACCESSES && !final)
      throw new BudgetExceeded(`more than ${MAX_ACCESSES} accesses`);
    this.seen.add(key);
    this.accesses.push(a);
    this.commandOf.set(a, this.commandSeq);
    if (this.unorderedDepth > 0) this.unordered.add(a);
  }

  /** The running command's stdin file (`< FILE`, the last one given), when its name is plain. */
  stdinFile(): Field | undefined {
    // Read only when a program asks (patch): most commands never do.
    const at = this.stdinRedirect;
    return at ? this.plainStdin(at.redirects, at.src) : undefined;
  }

  /**
   * `while read -r NAME; do …; done` (an `IFS=…` prefix allowed) reading its stdin: NAME takes one whole line
   * a time. Not when the loop has its own `<`, or `read` is a function of the script.
   */
  private readLoop(n: Node, src: string): { node: Node; name: string } | undefined {
    if (n.t !== 'loop' || !readsPipe({ t: 'cmd', assigns: [], words: [], redirects: n.redirects }))
      return undefined;
    const c = n.clause;
    if (c.t !== 'cmd' || c.redirects.length > 0 || this.state.funcs.has('read')) return undefined;
    if (c.assigns.some((a) => !this.text(a, src).startsWith('IFS='))) return undefined;
    const words = c.words.map((w) => this.text(w, src));
    const name = words.length === 3 && words[1] === '-r' ? words[2] : undefined;
    return words[0] === 'read' && name !== undefined && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name)
      ? { node: c, name }
      : undefined;
  }

  private plainStdin(redirects: readonly Redirect[], src: string): Field | undefined {
    const r = redirects.findLast((x) => x.op === '<' && (x.fd ?? 0) === 0);
    if (!r) return undefined;
    const text = this.text(r.target, src);
    return PLAIN.test(text) ? { value: text, raw: text, glob: -1, tilde: false } : undefined;
  }

  /** What the running command's stdin carries, when it is a pipeline stage fed known paths. */
  pipeInput(): PrintedPaths | undefined {
    return this.activeStage?.input;
  }

  /**
   * The running command takes paths beneath `roots` (real directories) from its pipe, split at blanks: a
   * name created by the same line with a blank or a quote in it would split into other paths.
   */
  takePipedPaths(roots: readonly string[]): void {
    const stage = this.activeStage;
    if (!stage) return;
    const printer = stage.input ? this.printers.get(stage.input) : undefined;
    stage.take = {
      roots,
      from: this.accesses.length,
      to: Number.POSITIVE_INFINITY,
      ...(printer ? { printer } : {}),
    };
  }

  /**
   * After the line: a path taken from a pipe and split at blanks is one item only if no name beneath its
   * roots holds a blank or quote. What existed was checked when it was taken; a write of the same line into
   * the roots (other than the taking command's own) may create such a name: then the split is unknown.
   */
  checkPipedNames(): void {
    for (const take of this.takes) {
      const bad = this.accesses.find(
        (a, k) =>
          (k < take.from || k >= take.to) &&
          (take.printer === undefined || k < take.printer[0] || k >= take.printer[1]) &&
          a.op === 'write' &&
          !this.removals.has(a) &&
          (!a.certain ||
            a.realPath === null ||
            (take.roots.some(
              (r) =>
                isWithin(a.realPath as string, r) ||
                (a.scope === 'subtree' && isWithin(r, a.realPath as string)),
            ) &&
              (a.scope !== 'path' || XARGS_SPLITS.test(a.realPath)))),
      );
      if (bad)
        this.uncertain(
          '<stdin>',
          'read',
          'xargs',
          `the line writes ${bad.path} where the paths xargs splits come from: a new name may split into other paths`,
        );
    }
  }

  /**
   * Whether printed paths arrive one a field when split at blanks (by xargs, or by the shell for a `$(…)`):
   * the roots' real directories when no name there splits (the printer checked its names, or none exists
   * beneath the roots now); the reason one does; `null` when it cannot be told.
   */
  splitRoots(paths: PrintedPaths): string[] | { splits: string } | null {
    const reals: string[] = [];
    for (const [k, root] of paths.roots.entries()) {
      const real = this.resolveDir(root);
      if (real === null) return null;
      const why = paths.checked ? undefined : unsplittableBeneath(real, root.value, paths.filters[k]);
      if (why === null) return null;
      if (why !== undefined) return { splits: why };
      reals.push(real);
    }
    return reals;
  }

  /** The running command prints these paths: the next stage of its pipeline may take them. */
  pipeOutput(paths: PrintedPaths): void {
    if (this.activeStage) this.activeStage.output = paths;
  }

  /** Runs `fn` as code whose commands may run before or after the others (a loop, a pipeline, `&`). */
  unorderedRun(fn: () => void): void {
    this.unorderedDepth++;
    try {
      fn();
    } finally {
      this.unorderedDepth--;
    }
  }

  uncertain(raw: string, op: Op, origin: string, reason: string): void {
    this.push(uncertainAccess(raw || '?', op, `${this.prefix}:${origin}`, reason));
  }

  private resolve(raw: string, cwd: string, tilde: boolean, followFinal: boolean): ResolvedPath {
    // Arguments are C strings: the program sees them cut at the first NUL (`$'a\x00b'` is `a`).
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

  emit(f: Field, op: Op, origin: string, o: EmitOptions = {}): void {
    if (f.pipe) return;
    if (f.under) {
      if (f.under.length === 0) this.uncertain(f.raw, op, origin, 'the paths it stands for are unknown');
      f.under.forEach((root, k) => {
        // The program's own filter and the paths' cannot both be honoured by one access: then neither.
        const mine = f.underFilters?.[k];
        const filter = mine && o.filter ? undefined : (mine ?? o.filter);
        const { filter: _drop, ...rest } = o;
        // Each path is handed to the program by name: unless it acts on a link itself (rm), it opens a
        // link's target — a link found beneath is judged where it leads (and a linked directory's contents
        // with it: more than the program reaches, never less).
        const links = o.followFinal === false ? {} : { followLinks: true };
        this.emit(root, op, origin, { ...rest, ...links, scope: 'subtree', ...(filter ? { filter } : {}) });
      });
      return;
    }
    const full = `${this.prefix}:${origin}`;
    if (f.uncertain !== undefined) {
      this.push(uncertainAccess(f.raw || '?', op, full, f.uncertain, o.scope ?? 'path'));
      return;
    }
    let value = f.value;
    let tilde = f.tilde;
    // `~` of a command run as another user (sudo bash -c 'cat ~/x') is that user's home.
    if (tilde && this.envMode !== undefined && /^~(\/|$)/.test(value)) {
      this.push(
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
      const t = tildeMeaning(value, this.state.vars, this.lookup, this.cdHappened);
      if (t.kind === 'uncertain') {
        this.push(uncertainAccess(f.raw, op, full, t.reason, o.scope ?? 'path'));
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
      filter = o.filter === undefined && pattern !== '' ? globFilter(pattern, this.globOptions) : undefined;
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
    const cwds = absolute ? [this.ctx.cwd] : this.state.cwds;
    for (const cwd of cwds) {
      if (cwd === null) {
        this.push(
          uncertainAccess(f.raw, op, full, 'relative path after a cd to an unknown directory', scope),
        );
        continue;
      }
      const resolved = this.resolve(value, cwd, tilde, followFinal);
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
      if (o.removes) this.removals.add(access);
      if (o.unknownNames !== undefined && scope === 'subtree') access.unknownContents = o.unknownNames;
      this.push(access);
      if (!this.planned.empty) this.throughPlanned(access, f.raw);
    }
  }

  /** Judges an access also where links this line creates lead (see `PlannedChanges`). */
  private throughPlanned(access: Access, raw: string): void {
    for (const r of this.planned.redirections(access)) {
      if ('uncertain' in r) {
        this.push(uncertainAccess(raw, access.op, access.origin, r.uncertain, access.scope));
        continue;
      }
      const followFinal = access.onLink !== true;
      const resolved = this.resolve(r.through, this.ctx.cwd, false, followFinal);
      const opts = { origin: access.origin, scope: access.scope, followFinal };
      const a = createAccess(r.through, access.op, this.ctx, opts, resolved);
      a.raw = raw;
      this.push(a);
    }
  }

  /** Records a symlink or hard link the command creates: later paths through it are judged through its target. */
  plannedLink(link: Field, target: Field | null): void {
    const cwd = this.state.cwds[0];
    if (link.uncertain !== undefined || cwd == null) return;
    const at = this.resolve(
      link.value,
      link.value.startsWith('/') || link.tilde ? this.ctx.cwd : cwd,
      link.tilde,
      false,
    );
    let dest: string | null = null;
    if (target && target.uncertain === undefined && target.value !== '') {
      const r = this.resolve(
        target.value,
        target.value.startsWith('/') || target.tilde ? this.ctx.cwd : cwd,
        target.tilde,
        true,
      );
      dest = r.certain ? r.real : null;
    }
    this.planned.addLink(
      at.real !== null && at.real !== at.lexical ? [at.lexical, at.real] : [at.lexical],
      dest,
    );
  }

  /** Records a directory the command fills with content it does not control (archives, clones). */
  taint(dir: Field): void {
    for (const cwd of dir.value.startsWith('/') || dir.tilde ? [this.ctx.cwd] : this.state.cwds) {
      if (cwd === null || dir.uncertain !== undefined) continue;
      const r = this.resolve(dir.value, cwd, dir.tilde, true);
      this.planned.addTainted(r.real !== null && r.real !== r.lexical ? [r.lexical, r.real] : [r.lexical]);
    }
  }

  readContent(f: Field, maxBytes = 256 * 1024): { text: string; path: string } | { uncertain: string } {
    const at = this.contentPath(f);
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
  private contentPath(f: Field): string | { uncertain: string } {
    if (f.uncertain !== undefined) return { uncertain: f.uncertain };
    if (f.pipe || f.under || f.glob >= 0 || f.value === '')
      return { uncertain: `${f.raw} is not one known file` };
    const cwd = this.onlyCwd(f);
    if (cwd == null) return { uncertain: `${f.raw} is relative to an unknown directory` };
    const r = this.resolve(f.value, cwd, f.tilde, true);
    if (!r.certain || r.real === null) return { uncertain: r.reason ?? `${f.raw} cannot be resolved` };
    if (writtenBefore(this.accesses, r.real))
      return { uncertain: `${f.raw} may be written by this command line before it is read` };
    return r.real;
  }

  exists(f: Field): boolean {
    if (f.uncertain !== undefined || f.value === '' || f.pipe) return false;
    const cwd = this.state.cwds[0];
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
        : this.state.cwds.length === 1
          ? this.state.cwds[0]
          : null;
    if (cwd == null || f.uncertain !== undefined) return null;
    const r = this.resolve(f.value, cwd, f.tilde, true);
    return r.certain ? r.real : null;
  }

  // ---------- variables ----------

  /** A variable's value where the script never assigned it: the call's environment (see `merge`). */
  private readonly inherited = (name: string): VarValue | undefined => {
    // PWD and OLDPWD follow the tracked cwd, which differs per branch: not inherited values.
    if (name === 'PWD' || name === 'OLDPWD' || !/^[A-Za-z_]/.test(name)) return undefined;
    if (this.envMode === 'clean') return 'unset';
    if (this.envMode === 'other-user' && (name === 'HOME' || name === 'USER' || name === 'LOGNAME'))
      return null;
    const env = this.ctx.env[name];
    if (env !== undefined) return [env];
    if (name === 'HOME') return [this.ctx.home];
    return 'unset';
  };

  lookup: Lookup = (name) => {
    const v = this.state.vars.get(name);
    if (v !== undefined) return v === 'unset' ? undefined : v;
    if (!/^[A-Za-z_]/.test(name)) return undefined;
    // The shell keeps these two in step with `cd`, whatever the environment said.
    if (name === 'PWD') {
      const c = this.state.cwds;
      return c.length === 1 && c[0] !== null ? [c[0]!] : null;
    }
    if (this.envMode === 'other-user' && (name === 'HOME' || name === 'USER' || name === 'LOGNAME'))
      return null;
    if (this.envMode === 'clean') return undefined;
    const env = this.ctx.env[name];
    if (env !== undefined) return [env];
    if (name === 'HOME') return [this.ctx.home];
    return undefined;
  };

  /**
   * Sets a variable; `'unset'` removes it. `local`: only until the function being called returns (the value
   * before the call comes back then).
   */
  /** `shopt -s dotglob`/`nocaseglob` or `GLOBIGNORE` seen: later globs match what bash would then match. */
  readonly globOptions: GlobOptions = { dot: false, nocase: false };

  setGlobOptions(o: Partial<GlobOptions>): void {
    if (o.dot) this.globOptions.dot = true;
    if (o.nocase) this.globOptions.nocase = true;
  }

  setVar(
    name: string,
    values: readonly string[] | null | 'unset' | 'declared',
    local = false,
    maybe = false,
  ): void {
    if (maybe && this.posix && values !== 'declared') {
      // Code a POSIX sh may run: the assignment may not happen, so the old value (or the inherited one)
      // stays possible beside the new one. Unset counts as empty: both vanish in a path (`$D/etc/x`).
      const old = this.state.vars.get(name) ?? this.inherited(name);
      values = mergeVar(old === undefined || old === 'unset' ? [''] : old, values) ?? null;
    }
    this.pathVars.delete(name);
    // Bash: setting GLOBIGNORE turns dotglob on.
    if (name === 'GLOBIGNORE') this.globOptions.dot = true;
    if (values === 'declared') {
      // `declare X` / `local X`: a new unset local inside a function; outside one only attributes change.
      if (!local || this.locals.length === 0) return;
      values = 'unset';
    }
    // Removing such a variable, or emptying it, makes nothing run (IFS='' does change splitting).
    if (values !== 'unset' && (name === 'IFS' || values === null || values.some((v) => v !== '')))
      this.dangerous(name);
    if (this.integers.has(name) && values !== 'unset') {
      // `declare -i n; n=EXPR`: assigning to an integer variable evaluates the value as arithmetic.
      if (values === null)
        this.uncertain(name, 'write', 'code', `integer variable ${name} gets a value that is not known`);
      else for (const v of values) arithmetic(v, this.sink(0));
    }
    const frame = this.locals[this.locals.length - 1];
    if (local && frame && !frame.has(name)) frame.set(name, this.state.vars.get(name));
    writableVars(this.state).set(name, values);
  }

  /** A variable's value as the script left it: `undefined` unset, `null` not known for certain. */
  variable(name: string): string | null | undefined {
    const v = this.state.vars.get(name) ?? this.inherited(name);
    if (v === undefined || v === 'unset') return undefined;
    return v === null || v.length !== 1 ? null : v[0];
  }

  dropFunction(name: string): void {
    if (this.state.funcs.has(name)) writableFuncs(this.state).delete(name);
  }

  /** Runs `fn` with these variables set, then puts back what they were (a command's own environment). */
  withVars(vars: readonly [string, string[] | null][], fn: () => void): void {
    if (vars.length === 0) {
      fn();
      return;
    }
    const saved = vars.map(([n]) => [n, this.state.vars.get(n)] as const);
    for (const [n, v] of vars) this.setVar(n, v);
    fn();
    const out = writableVars(this.state);
    for (const [n, v] of saved) {
      if (v === undefined) out.delete(n);
      else out.set(n, v);
    }
  }

  /** `export -f NAME`: child shells see the function. */
  exportFunction(name: string): void {
    const defs = this.state.funcs.get(name);
    if (!defs) return;
    const exported = defs.map((d) => {
      if (d.exported) return d;
      let e = this.exportedDefs.get(d);
      if (!e) {
        e = { ...d, exported: true };
        this.exportedDefs.set(d, e);
      }
      return e;
    });
    writableFuncs(this.state).set(name, exported);
  }

  /** Variables that make programs run or load code of their choosing, or change how words split. */
  dangerous(name: string): void {
    if (DANGEROUS.test(name)) {
      this.uncertain(
        `${name}=`,
        'write',
        'assign',
        `setting ${name} changes what programs run or how the shell reads words`,
      );
    }
  }

  // ---------- words ----------

  text(w: WordRef, src: string): string {
    return src.slice(w.s, w.e);
  }

  expand(raw: string, depth: number): Field[] {
    tick();
    // Most words are plain: nothing to expand, quote or glob.
    if (PLAIN.test(raw)) return [{ value: raw, raw, glob: -1, tilde: false }];
    if (this.pathVars.size > 0) {
      const m = PATH_VAR.exec(raw);
      const name = m?.[1] ?? m?.[2];
      const paths = name === undefined ? undefined : this.pathVars.get(name);
      if (paths && name !== undefined && this.lookup(name) === null) return [{ ...paths, raw }];
    }
    let ex: Expanded;
    try {
      ex = expandWord(raw, this.lookup);
    } catch (err) {
      if (!(err instanceof ShellParseError)) throw err;
      return [{ value: raw, raw, glob: -1, tilde: false, uncertain: `cannot parse word: ${err.message}` }];
    }
    const whole =
      ex.nested.length === 1 && ex.fields.length === 1 ? this.wholeSubstitution(raw, ex.nested[0]!) : false;
    for (const n of ex.nested) {
      if (!whole) {
        this.runNested(n, depth);
        continue;
      }
      const capture: { printed?: PrintedPaths } = {};
      this.capture = capture;
      try {
        this.runNested(n, depth);
      } finally {
        this.capture = undefined;
      }
      const paths = capture.printed;
      if (paths && !paths.nul && this.substitutedPathsSplit(paths)) return [this.under(paths, raw)];
    }
    return ex.fields;
  }

  /** The word is one unquoted `$(…)` or backtick substitution, split into fields and globbed by the shell. */
  private wholeSubstitution(raw: string, n: Nested): boolean {
    return (
      (n.origin === 'substitution' && raw === `$(${n.text})`) ||
      (n.origin === 'backtick' && raw === `\`${n.text}\``)
    );
  }

  /**
   * Paths a `$(…)` prints become one field each only when no name splits at the default IFS or globs: the
   * printer checked its names (git's index), or none exists beneath the roots now and the line does not
   * create one (as for xargs, whose split characters include these).
   */
  private substitutedPathsSplit(paths: PrintedPaths): boolean {
    if (this.lookup('IFS') !== undefined) return false;
    const reals = this.splitRoots(paths);
    if (!Array.isArray(reals)) return false;
    const printer = this.printers.get(paths);
    this.takes.push({
      roots: reals,
      from: this.accesses.length,
      to: this.accesses.length,
      ...(printer ? { printer } : {}),
    });
    return true;
  }

  /** A field standing for every path of a printed set (as find's `{}` does). */
  private under(paths: PrintedPaths, raw: string): Field {
    // Marked unknown as a value: a handler that reads the word itself (`cd $(find …)`) must not take it literally;
    // accesses on it are the paths beneath the roots.
    return {
      value: raw,
      raw,
      glob: -1,
      tilde: false,
      under: paths.roots,
      underFilters: paths.filters,
      uncertain: `${raw} stands for several paths`,
    };
  }

  /** A word inside `[[ … ]]`: expanded without field splitting or globbing (bash does neither there). */
  private expandUnsplit(raw: string, depth: number): Field[] {
    if (PLAIN.test(raw)) return [{ value: raw, raw, glob: -1, tilde: false }];
    const r = expandAssignment(raw, this.lookup);
    for (const n of r.nested) this.runNested(n, depth);
    const tilde = /^~[^'"]*$/.test(raw.split('/')[0]!);
    if (r.values?.length === 1) return [{ value: r.values[0]!, raw, glob: -1, tilde }];
    const reason =
      r.values === null ? 'a value inside [[ … ]] is not known' : 'a value inside [[ … ]] has several values';
    return [{ value: '', raw, glob: -1, tilde: false, uncertain: reason }];
  }

  // ---------- scripts ----------

  /** Code found inside a word: a command substitution, an arithmetic expression, a prompt string. */
  runNested(n: Nested, depth: number): void {
    if (n.origin === 'arithmetic') arithmetic(n.text, this.sink(depth));
    else if (n.origin === 'unknown-code')
      this.uncertain(n.text, 'write', 'prompt', `${n.text} runs the $(…) in a value that is not known`);
    else if (n.origin === 'prompt') {
      for (const m of heredocSubstitutions(n.text, this.lookup)) this.runNested(m, depth);
    } else this.nestedScript(n.text, depth + 1, n.origin, true);
  }

  /** Where code hidden in data goes (see `codeInData.ts`). */
  private sink(depth: number): CodeSink {
    return {
      lookup: this.lookup,
      code: (text, via) => this.nestedScript(text, depth + 1, via, true),
      uncertain: (raw, reason) => this.uncertain(raw, 'write', 'code', reason),
    };
  }

  /** Analyses nested code. `isolated`: runs in a subshell (its cd and assignments do not leak). */
  nestedScript(
    text: string,
    depth: number,
    via: string,
    isolated: boolean,
    positional?: readonly Field[],
    newProcess = false,
    posix?: boolean,
  ): void {
    if (depth > this.maxDepth) {
      this.uncertain(text, 'write', via, `nested code deeper than ${this.maxDepth} levels`);
      return;
    }
    let script: Script;
    try {
      script = parseScript(text, this.options.parse ?? 'auto');
    } catch (err) {
      if (!(err instanceof ShellParseError)) throw err;
      this.uncertain(text, 'write', via, `cannot parse nested command: ${err.message}`);
      return;
    }
    for (const m of findMetacharacters(text))
      if (!this.metacharacters.includes(m)) this.metacharacters.push(m);
    const saved = isolated ? cloneState(this.state) : undefined;
    if (newProcess) {
      // Another shell process (`bash -c`) knows only exported functions; the rest are programs there.
      for (const [n, defs] of this.state.funcs) {
        const exported = defs.filter((d) => d.exported);
        if (exported.length !== defs.length)
          exported.length === 0
            ? writableFuncs(this.state).delete(n)
            : writableFuncs(this.state).set(n, exported);
      }
    }
    if (positional) {
      // `bash -c SCRIPT NAME ARGS…`: $0 is NAME, $1… the ARGS; past them the parameters are empty.
      for (let k = 0; k <= 9; k++) {
        const f = positional[k];
        writableVars(this.state).set(
          String(k),
          f === undefined ? [''] : fieldAsValue(f) === null ? null : [fieldAsValue(f)!],
        );
      }
      const rest = positional.slice(1);
      writableVars(this.state).set(
        '@',
        rest.some((f) => fieldAsValue(f) === null) ? null : rest.map((f) => fieldAsValue(f)!),
      );
      writableVars(this.state).set('*', this.state.vars.get('@')!);
      writableVars(this.state).set('#', [String(rest.length)]);
    }
    const outerPosix = this.posix;
    if (posix !== undefined) this.posix = posix;
    // A whole-word `$(…)`: what its one command (or pipeline) prints, when that is known paths.
    const capture = this.capture;
    this.capture = undefined;
    const root = script.root;
    const own: PipeStage | undefined =
      capture && exactRedirects(script) && root.t === 'cmd' && printsToPipe(root)
        ? { node: root }
        : undefined;
    const outerStage = this.stage;
    this.stage = own;
    try {
      this.script(script, depth);
    } finally {
      this.posix = outerPosix;
      this.stage = outerStage;
    }
    if (capture) {
      const printed = own ? own.output : root.t === 'pipe' ? this.pipeOuts.get(root) : undefined;
      if (printed) capture.printed = printed;
    }
    if (saved) this.state = saved;
  }

  script(script: Script, depth: number): void {
    for (const h of script.heredocs) {
      if (!h.expands) continue;
      const body = script.src.slice(h.s, h.e);
      if (body.includes('$(') || body.includes('`')) {
        // A heredoc body is data, but an unquoted one still runs its command substitutions.
        try {
          for (const n of heredocSubstitutions(body, this.lookup)) this.runNested(n, depth);
        } catch (err) {
          if (!(err instanceof ShellParseError)) throw err;
          this.uncertain(
            body,
            'write',
            'heredoc',
            `cannot parse a substitution in a heredoc: ${err.message}`,
          );
        }
      }
    }
    // The text bash-parser reads has `N>&M` masked (it misreads them): with one, what a pipe carries is only
    // read from our own parse.
    const outerExact = this.exactTree;
    this.exactTree = exactRedirects(script);
    try {
      this.run(script.root, script.src, depth);
    } finally {
      this.exactTree = outerExact;
    }
  }

  private alternatives(branches: (() => void)[], includeStart: boolean): void {
    const start = cloneState(this.state);
    const ends: ShellState[] = includeStart ? [start] : [];
    for (const b of branches) {
      this.state = cloneState(start);
      b();
      ends.push(this.state);
    }
    this.state = merge(ends, this.inherited);
  }

  private loop(body: () => void): void {
    // Zero, one or more iterations, by widening rather than unrolling: run the body, and while the merged
    // end state differs from the start, make what changed unknown and run it again from there. Values only
    // ever move towards unknown, so this stops; and a nested loop's second pass starts from an already
    // widened state, where it needs one pass — nesting costs O(n²) body runs, not 2ⁿ.
    let start = cloneState(this.state);
    for (let step = 0; ; step++) {
      // Cannot happen by the argument above; if it ever did, fail closed rather than spin.
      if (step > 64) throw new BudgetExceeded('a loop did not reach a fixpoint');
      this.state = cloneState(start);
      body();
      const end = merge([start, this.state], this.inherited);
      const widened = widen(start, end, step);
      if (widened === start) {
        this.state = end;
        return;
      }
      start = widened;
    }
  }

  private redirects(list: readonly Redirect[], src: string, depth: number): void {
    for (const r of list) {
      const raw = this.text(r.target, src);
      if (r.kind === 'heredoc') continue;
      const fields = this.expand(raw, depth);
      if (r.kind === 'herestring') continue;
      for (const f of fields) {
        if (r.kind === 'dup') {
          // `2>&1`, `>&-`: file descriptors; `>&file` (bash) writes the file.
          if (/^(?:\d+-?|-)$/.test(f.value) && f.uncertain === undefined) continue;
          this.emit(f, r.op === '<&' ? 'read' : 'write', 'redirect');
          continue;
        }
        const op: Op = r.op === '<' ? 'read' : 'write';
        this.emit(f, op, 'redirect');
      }
      // Several fields are the values a variable may have here (`for i in 1 2 3; do … > out$i; done`), each
      // emitted above, or one value split in several, which bash refuses ("ambiguous redirect") before the
      // command runs: either way nothing is written beyond those. No field at all is not analysed.
      if (fields.length === 0 && r.kind !== 'dup')
        this.uncertain(raw, 'write', 'redirect', 'ambiguous redirect');
    }
  }

  run(node: Node, src: string, depth: number): void {
    tick();
    switch (node.t) {
      case 'cmd':
        this.command(node, src, depth);
        return;
      case 'seq':
        for (const n of node.items) this.run(n, src, depth);
        return;
      case 'and': {
        // `A && B && C`: each part runs only if the ones before succeeded, so in the state they left; the
        // chain may stop after any part, so what follows sees any of those states.
        const chain: Node[] = [];
        let n: Node = node;
        while (n.t === 'and') {
          chain.unshift(n.right);
          n = n.left;
        }
        chain.unshift(n);
        const ends: ShellState[] = [cloneState(this.state)];
        for (const part of chain) {
          this.run(part, src, depth);
          ends.push(cloneState(this.state));
        }
        this.state = merge(ends, this.inherited);
        return;
      }
      case 'or': {
        // `A || B`: B runs after A failed (A may have changed nothing or everything it does).
        const start = cloneState(this.state);
        this.run(node.left, src, depth);
        const afterLeft = cloneState(this.state);
        this.state = merge([start, afterLeft], this.inherited);
        this.run(node.right, src, depth);
        this.state = merge([afterLeft, this.state], this.inherited);
        return;
      }
      case 'pipe':
      case 'bg': {
        // Every part of a pipeline, and a background job, runs in a subshell.
        const items = node.t === 'pipe' ? node.items : [node.node];
        // The parts of a pipeline run at the same time, a background job beside what follows it.
        // `|&` sends stderr down the pipe too (messages, not paths): no stage then carries known paths.
        const stdoutOnly = node.t === 'pipe' && !src.includes('|&') && this.exactTree;
        this.unorderedRun(() => {
          let printed: PrintedPaths | undefined;
          for (const n of items) {
            const saved = cloneState(this.state);
            const outer = this.stage;
            const stage: PipeStage = { node: n, ...(printed && readsPipe(n) ? { input: printed } : {}) };
            this.stage = stage;
            const reader = printed && !printed.nul ? this.readLoop(n, src) : undefined;
            const outerReader = this.readerClause;
            if (reader && printed && this.substitutedPathsSplit(printed))
              this.readerClause = { ...reader, paths: this.under(printed, `$${reader.name}`) };
            try {
              this.run(n, src, depth);
            } finally {
              this.stage = outer;
              this.readerClause = outerReader;
            }
            printed = stdoutOnly && printsToPipe(n) ? stage.output : undefined;
            this.state = saved;
          }
          if (node.t === 'pipe' && printed) this.pipeOuts.set(node, printed);
        });
        return;
      }
      case 'subshell': {
        this.redirects(node.redirects, src, depth);
        const saved = cloneState(this.state);
        this.run(node.body, src, depth);
        this.state = saved;
        return;
      }
      case 'group':
        this.redirects(node.redirects, src, depth);
        this.run(node.body, src, depth);
        return;
      case 'if': {
        // `then` runs after the condition succeeded; `else` after it failed, when its effects may be partial.
        this.redirects(node.redirects, src, depth);
        const start = cloneState(this.state);
        this.run(node.clause, src, depth);
        const afterClause = cloneState(this.state);
        this.run(node.consequent, src, depth);
        const afterThen = this.state;
        this.state = merge([start, afterClause], this.inherited);
        if (node.alternate) this.run(node.alternate, src, depth);
        this.state = merge([afterThen, this.state], this.inherited);
        return;
      }
      case 'loop':
        this.redirects(node.redirects, src, depth);
        this.run(node.clause, src, depth);
        this.unorderedRun(() =>
          this.loop(() => {
            this.run(node.body, src, depth);
            this.run(node.clause, src, depth);
          }),
        );
        return;
      case 'for': {
        this.redirects(node.redirects, src, depth);
        let values: string[] | null = [];
        const listed: Field[] = [];
        if (!node.list) values = null;
        else {
          for (const w of node.list) {
            // bash expands a tilde prefix in the word list (`for f in ~/.ssh/*` walks $HOME/.ssh): the
            // value the variable takes is the expanded one, not a literal `~` a later "$f" keeps.
            for (const f of this.expand(this.text(w, src), depth).flatMap((x) => this.tildeNow(x))) {
              listed.push(f);
              let g = f;
              if (g.tilde) {
                const e = expandPath(g.value, this.ctx, { vars: false }).value;
                g = {
                  ...g,
                  value: e,
                  tilde: false,
                  glob: g.glob >= 0 ? g.glob + e.length - g.value.length : -1,
                };
              }
              const v = fieldAsValue(g);
              if (v === null) values = null;
              else values?.push(v);
            }
          }
        }
        if (values !== null && values.length === 0) return;
        this.setVar(node.name, values);
        // `for f in $(git ls-files)`: f is one of the printed paths.
        if (values === null && listed.length === 1 && listed[0]!.under)
          this.pathVars.set(node.name, listed[0]!);
        this.unorderedRun(() => this.loop(() => this.run(node.body, src, depth)));
        return;
      }
      case 'case': {
        this.redirects(node.redirects, src, depth);
        this.expand(this.text(node.word, src), depth);
        // Patterns are expanded too: a `$(…)` in one runs.
        for (const item of node.items) for (const p of item.patterns) this.expand(this.text(p, src), depth);
        const branches = node.items.map((item) => () => item.body && this.run(item.body, src, depth));
        this.alternatives(branches, true);
        return;
      }
      case 'func': {
        // Analysed where it is called, with the state there (what `~`, `$X` or the cwd mean then) — and
        // here as well, in a subshell, with unknown arguments: a persistent shell may call it later.
        const saved = cloneState(this.state);
        this.redirects(node.redirects, src, depth);
        this.run(node.body, src, depth);
        this.state = saved;
        // One object per definition, so that a loop redefining it reaches its fixpoint.
        let def = this.defs.get(node);
        if (!def) {
          def = { body: node.body, src, redirects: node.redirects, exported: false };
          this.defs.set(node, def);
        }
        writableFuncs(this.state).set(node.name, [def]);
        return;
      }
      case 'not': {
        // Success and failure swap: a later `&&` may run in the state from before this part.
        const before = cloneState(this.state);
        this.run(node.node, src, depth);
        this.state = merge([before, this.state], this.inherited);
        return;
      }
      case 'arith': {
        // bash: an arithmetic command. POSIX sh (dash) has none: `((cat X))` is a subshell in a subshell
        // there, so where the shell may be sh both readings are analysed.
        const text = this.text(node.text, src);
        arithmetic(text.replace(/^\s*\(\(|\)\)\s*$/g, ''), this.sink(depth));
        if (this.posix) this.nestedScript(`( ${text.trim().slice(1)}`, depth + 1, 'posix-subshell', true);
        return;
      }
    }
  }

  private command(node: Extract<Node, { t: 'cmd' }>, src: string, depth: number): void {
    // Assignments: values are tracked for what follows (or for this command only, with a command).
    const temp: [string, string[] | null][] = [];
    for (const a of node.assigns) {
      const text = this.text(a, src);
      const name = NAME.exec(text)?.[0] ?? '';
      const valueText = text.slice(text.indexOf('=') + 1);
      const r = expandAssignment(valueText, this.lookup);
      for (const n of r.nested) this.runNested(n, depth);
      let values = r.values;
      if (values && valueText.startsWith('~')) values = this.assignedTilde(values);
      // `a[i]=v` and `a+=v`: an element or an append, whose whole value we do not track.
      const lhs = text.slice(0, text.indexOf('='));
      if (lhs.includes('[') || lhs.endsWith('+')) values = null;
      temp.push([name, values]);
    }
    if (node.words.length === 0) {
      for (const [n, v] of temp) this.setVar(n, v);
      this.redirects(node.redirects, src, depth);
      return;
    }
    // `X=/etc cat $X/passwd`: bash expands the *old* value of X in the arguments; judge both.
    const saved = new Map<string, VarValue | undefined>();
    for (const [n, v] of temp) {
      // `IFS=, read -r a b`: the read builtin alone splits with it (a function of that name would not).
      const reader =
        n === 'IFS' &&
        /^(read|mapfile|readarray)$/.test(this.text(node.words[0]!, src)) &&
        !this.state.funcs.has(this.text(node.words[0]!, src));
      if ((v === null || v.some((x) => x !== '') || n === 'IFS') && !reader) this.dangerous(n);
      const old = this.lookup(n);
      saved.set(n, this.state.vars.get(n));
      const uses = node.words.some((w) => new RegExp(`\\$\\{?${n}\\b`).test(this.text(w, src)));
      if (uses && (old === null || old === undefined)) {
        this.uncertain(
          `$${n}`,
          'write',
          'assign',
          `$${n} in the arguments expands its value before this assignment, which is not known`,
        );
      }
      writableVars(this.state).set(n, v === null ? null : old ? union(v, old) : v);
    }
    const fields: Field[] = [];
    const conditional = node.words.length > 0 && this.text(node.words[0]!, src) === '[[';
    for (const w of node.words) {
      const text = this.text(w, src);
      fields.push(...(conditional ? this.expandUnsplit(text, depth) : this.expand(text, depth)));
    }
    this.redirects(node.redirects, src, depth);
    // The command itself runs with the new values in its environment: a child shell (`HOME=/etc bash -c
    // 'cat ~/shadow'`) expands `~` from them, as does `cd` with no operand.
    // `HOME=/etc cat ~/x`: bash expands `~` before the assignment takes effect — resolve it now.
    if (temp.length > 0) fields.splice(0, fields.length, ...fields.flatMap((f) => this.tildeNow(f)));
    for (const [n, v] of temp) writableVars(this.state).set(n, v);
    const active = this.activeStage;
    const stage = this.stage?.node === node ? this.stage : undefined;
    this.activeStage = stage;
    const outerStdin = this.stdinRedirect;
    this.stdinRedirect = node.redirects.length > 0 ? { redirects: node.redirects, src } : undefined;
    const start = this.accesses.length;
    try {
      this.exec(fields, depth);
      if (stage?.output && stage.output !== stage.input)
        this.printers.set(stage.output, [start, this.accesses.length]);
      if (this.readerClause?.node === node)
        this.pathVars.set(this.readerClause.name, this.readerClause.paths);
      // A line filter between the paths and their taker passes them on (`| grep -v test |`).
      if (stage?.input && !stage.input.nul && !stage.output && keepsLines(fields)) stage.output = stage.input;
    } finally {
      this.activeStage = active;
      this.stdinRedirect = outerStdin;
      if (stage?.take) {
        stage.take.to = this.accesses.length;
        this.takes.push(stage.take);
      }
    }
    for (const [n, v] of saved) {
      if (v === undefined) writableVars(this.state).delete(n);
      else writableVars(this.state).set(n, v);
    }
  }

  /** A field's tilde prefix expanded in the state as it is now (not when the command runs). */
  private tildeNow(f: Field): Field[] {
    if (!f.tilde) return [f];
    const t = tildeMeaning(f.value, this.state.vars, this.lookup, this.cdHappened);
    if (t.kind === 'core') return [f];
    if (t.kind === 'uncertain') return [{ ...f, tilde: false, uncertain: t.reason }];
    if (t.kind === 'literal') return [{ ...f, tilde: false }];
    if (t.kind === 'cwd') return [{ ...f, value: `.${t.rest}`, tilde: false }];
    return t.values.map((v) => ({
      ...f,
      value: v,
      tilde: false,
      glob: f.glob >= 0 ? f.glob + v.length - f.value.length : -1,
    }));
  }

  /** `X=~/a`: the tilde prefix of an assigned value, expanded from the state as it is now; `null` if unknown. */
  private assignedTilde(values: string[]): string[] | null {
    const out: string[] = [];
    for (const v of values) {
      const t = tildeMeaning(v, this.state.vars, this.lookup, this.cdHappened);
      if (t.kind === 'uncertain') return null;
      if (t.kind === 'values') out.push(...t.values);
      else if (t.kind === 'literal') out.push(v);
      else if (t.kind === 'cwd') {
        const pwd = this.lookup('PWD');
        if (!pwd) return null;
        out.push(...pwd.map((p) => p + t.rest));
      } else out.push(expandPath(v, this.ctx, { vars: false }).value);
    }
    return out;
  }

  /**
   * Runs argv in a changed environment: as another user (`sudo`, `su`: `~` and `$HOME` inside nested code are
   * that user's) or with an emptied one (`env -i`: variables are unset there).
   */
  execWith(argv: readonly Field[], depth: number, env?: 'other-user' | 'clean'): void {
    if (env === undefined) {
      this.exec(argv, depth);
      return;
    }
    const saved = this.envMode;
    // The words were expanded by this shell, with its own `~`, before the other user's program starts.
    const own = argv.map((f) =>
      f.tilde && /^~(\/|$)/.test(f.value) && this.envMode === undefined
        ? { ...f, value: expandPath(f.value, this.ctx, { vars: false }).value, tilde: false }
        : f,
    );
    this.envMode = env;
    try {
      this.exec(own, depth);
    } finally {
      this.envMode = saved;
    }
  }

  /**
   * The shell itself reads the names of a glob's directory to expand it, whatever the command then does
   * with the matches: `echo ~/.ssh/*` prints the names in ~/.ssh (strace: getdents64 of it), exactly what
   * `ls ~/.ssh` is denied for. A list of the static directory; of everything beneath it when a later
   * segment of the pattern is a glob too (`src/?/x*` lists each directory it matches on the way).
   */
  private globListing(f: Field): void {
    if (f.uncertain !== undefined || f.under || f.pipe) return;
    const slash = f.value.lastIndexOf('/', f.glob);
    const dir = slash === -1 ? '.' : slash === 0 ? '/' : f.value.slice(0, slash);
    // A deeper pattern: the subtree of the static directory filtered by the pattern, as its read would be.
    if (f.value.indexOf('/', f.glob) !== -1) this.emit(f, 'list', 'glob');
    else this.emit({ ...f, value: dir, glob: -1 }, 'list', 'glob');
  }

  /** The one directory `f` is relative to here; `null` when the cwd may be more than one place. */
  private onlyCwd(f: Field): string | null {
    if (f.value.startsWith('/') || f.tilde) return this.ctx.cwd;
    return this.state.cwds.length === 1 ? (this.state.cwds[0] ?? null) : null;
  }

  /** Whether this line writes `f` itself (a path write, or a write whose target is not known). */
  private writtenAsFile(f: Field): boolean {
    const cwd = this.onlyCwd(f);
    if (cwd == null) return true;
    const r = this.resolve(f.value, cwd, f.tilde, true);
    if (!r.certain || r.real === null) return true;
    return this.accesses.some(
      (a) => a.op === 'write' && (!a.certain || (a.scope === 'path' && a.realPath === r.real)),
    );
  }

  /** Runs argv: looks the command up and hands it its operands. */
  exec(fields: readonly Field[], depth: number): void {
    const head = fields[0];
    if (!head) return;
    this.commandSeq++;
    const args = fields.slice(1);
    if (this.aliases.has(head.value)) {
      this.uncertain(head.raw, 'write', 'command', `${head.value} may be an alias this line defines`);
      this.unknownOperands('unknown', args);
      return;
    }
    if (head.uncertain !== undefined || head.glob >= 0 || head.under || head.pipe) {
      this.uncertain(head.raw, 'write', 'command', head.uncertain ?? 'the command name is a glob');
      this.unknownOperands('unknown', args);
      return;
    }
    let name = head.value;
    const slash = name.lastIndexOf('/');
    if (slash !== -1) {
      const dir = name.slice(0, slash) || '/';
      if (BIN_DIRS.has(dir)) name = name.slice(slash + 1);
      else {
        // A script or program by path: it is read (executed). A shell script (its `#!` names sh, bash or
        // dash) is analysed as shell, as `bash FILE` is; a file this line writes first cannot be seen
        // (`cat > /tmp/t.sh <<EOF … EOF; chmod +x /tmp/t.sh && /tmp/t.sh` ran unseen code); anything else
        // is a program whose own effects are unknown.
        this.emit(head, 'read', `${name}:exec`);
        if (this.options.programs)
          this.emit(head, 'read', `${name}:program`, { runs: `\`${head.raw}\` runs` });
        const content = this.readContent(head, 256 * 1024);
        // Written as a file by this line (a redirect, a heredoc, a copy of one file): code nobody has seen.
        // A file a whole-tree write brings (`python3 -m venv .venv && .venv/bin/pip …`) is an installed
        // program like any other.
        if (
          'uncertain' in content &&
          /written by this command line/.test(content.uncertain) &&
          this.writtenAsFile(head)
        ) {
          this.uncertain(
            head.raw,
            'write',
            `${name}:exec`,
            `what ${head.raw} runs cannot be seen: ${content.uncertain}`,
          );
          return;
        }
        const shebang = 'text' in content ? /^#!\s*(\S+)(?:[ \t]+(\S+))?/.exec(content.text) : null;
        const interp = shebang
          ? posix.basename(shebang[1]!) === 'env'
            ? shebang[2]
            : posix.basename(shebang[1]!)
          : undefined;
        if ('text' in content && interp !== undefined && /^(sh|bash|dash)$/.test(interp)) {
          this.nestedScript(
            content.text,
            depth + 1,
            `${name}:exec`,
            true,
            [head, ...args],
            true,
            interp !== 'bash',
          );
          return;
        }
        this.unknown.push(name);
        this.unknownOperands(name, args);
        return;
      }
    }
    for (const f of args) if (f.glob >= 0) this.globListing(f);
    codeInArgv(name, args, this.sink(depth));
    if (INTEGER_DECL.has(name) && args.some((f) => /^-[a-zA-Z]*i/.test(f.value)))
      for (const f of args) {
        const n = NAME.exec(f.value)?.[0];
        if (n && !f.value.startsWith('-')) this.integers.add(n);
      }
    const defs = this.state.funcs.get(name);
    if (defs) {
      this.callFunction(name, defs, args, depth);
      return;
    }
    // The table's view of the command stands in any case; elsewhere on $PATH it is also that file.
    if (slash === -1 && !BASH_BUILTINS.has(name) && this.state.vars.has('PATH')) this.pathProgram(head, args);
    if (this.options.programs && !BASH_BUILTINS.has(name)) this.markProgram(head);
    const handler = shellBuiltins[name] ?? commandTable.get(name);
    if (!handler) {
      if (!this.unknown.includes(name)) this.unknown.push(name);
      this.unknownOperands(name, args);
      return;
    }
    handler(this.context(name, args, depth));
  }

  /**
   * Runs a function's body in this shell (its cd and assignments persist, `local` ones do not) with `$1`…
   * bound to the arguments; several possible definitions are alternatives. Recursion stops at `maxDepth`.
   */
  private callFunction(name: string, defs: readonly FuncDef[], args: readonly Field[], depth: number): void {
    if (depth + 1 > this.maxDepth) {
      this.uncertain(name, 'write', 'function', `function calls nested deeper than ${this.maxDepth} levels`);
      return;
    }
    const positional = ['@', '*', '#', ...Array.from({ length: 10 }, (_, k) => String(k + 1))];
    const outer = new Map(positional.map((n) => [n, this.state.vars.get(n)] as const));
    const vars = writableVars(this.state);
    const known = args.map(fieldAsValue);
    for (let k = 1; k <= 10; k++) {
      const v = known[k - 1];
      vars.set(String(k), v === undefined ? 'unset' : v === null ? null : [v]);
    }
    vars.set('@', known.some((v) => v === null) ? null : (known as string[]));
    vars.set('*', vars.get('@')!);
    vars.set('#', [String(args.length)]);
    if (defs.some((d) => this.calling.has(d))) {
      // Unrolling recursion costs exponential time for what a fixpoint would give; fail closed instead.
      this.uncertain(name, 'write', 'function', `recursive call of function ${name}`);
      return;
    }
    this.locals.push(new Map());
    this.alternatives(
      defs.map((d) => () => {
        this.calling.add(d);
        try {
          this.redirects(d.redirects, d.src, depth + 1);
          this.run(d.body, d.src, depth + 1);
        } finally {
          this.calling.delete(d);
        }
      }),
      false,
    );
    const frame = this.locals.pop()!;
    const after = writableVars(this.state);
    for (const [n, v] of [...frame, ...outer]) {
      if (v === undefined) after.delete(n);
      else after.set(n, v);
    }
  }

  /**
   * After the script changed $PATH (`export PATH=venv/bin:$PATH`), whether `head` still runs the system
   * program the table describes. If not, it was handled here: a file elsewhere on $PATH runs like a program
   * given by path (read, operands as an unknown command's); a $PATH we cannot know is uncertain.
   */
  private pathProgram(head: Field, args: readonly Field[]): void {
    const path = this.lookup('PATH');
    if (!path) {
      this.uncertain(
        head.value,
        'write',
        'command',
        `${head.value} is looked up through a $PATH that is not known`,
      );
      return;
    }
    for (const value of path) {
      for (const cwd of this.state.cwds) {
        const hit = lookupInPath(head.value, value, cwd, (dir) => writtenBefore(this.accesses, dir));
        if (hit.kind === 'system') continue;
        if (hit.kind === 'uncertain') {
          this.uncertain(head.value, 'write', 'command', hit.reason);
          return;
        }
        this.emit({ ...head, value: hit.file }, 'read', `${head.value}:exec`);
        if (!this.unknown.includes(head.value)) this.unknown.push(head.value);
        this.unknownOperands(head.value, args);
        return;
      }
    }
  }

  /**
   * Program identity (invariant 6): marks the file `head` runs — the path it names, or the first hit on
   * `$PATH` as this line left it — so the policy decides whether that is code the agent could have written.
   */
  private markProgram(head: Field): void {
    const runs = `\`${head.raw}\` runs`;
    if (head.value.includes('/')) {
      this.emit(head, 'read', `${posix.basename(head.value)}:program`, { runs });
      return;
    }
    const path = this.lookup('PATH');
    if (path === null) {
      this.uncertain(
        head.value,
        'write',
        'command',
        `${head.value} is looked up through a $PATH that is not known`,
      );
      return;
    }
    for (const value of path ?? [DEFAULT_PATH])
      for (const cwd of this.state.cwds) {
        const hit = findProgram(head.value, value, cwd, (dir) => writtenBefore(this.accesses, dir));
        if (hit.kind === 'uncertain') this.uncertain(head.value, 'write', 'command', hit.reason);
        else if (hit.kind === 'found')
          this.emit({ ...head, value: hit.file, glob: -1, tilde: false }, 'read', `${head.value}:program`, {
            runs,
          });
      }
  }

  unknownOperands(name: string, args: readonly Field[]): void {
    unknownCommand(args, this.context(name, args, 0));
  }

  private context(name: string, args: readonly Field[], depth: number): CommandContext {
    return new CommandCx(this, name, args, depth);
  }

  chdir(target: Field | null, cdpath = false): void {
    this.cdHappened = true;
    // cd sets OLDPWD to the old $PWD and PWD to where it lands (the tracked cwd, read through lookup).
    const oldPwd = this.lookup('PWD');
    const vars = writableVars(this.state);
    vars.set('OLDPWD', oldPwd === undefined ? null : oldPwd);
    vars.delete('PWD');
    // `cd name` searches $CDPATH first: where it lands is not known.
    if (
      cdpath &&
      target &&
      !/^(\/|\.\.?(\/|$))/.test(target.value) &&
      !target.tilde &&
      (this.lookup('CDPATH') ?? ['']).some((p) => p !== '')
    ) {
      this.state.cwds = [null];
      return;
    }
    if (target === null || target.uncertain !== undefined || target.glob >= 0 || target.value === '-') {
      this.state.cwds = [null];
      return;
    }
    const next: (string | null)[] = [];
    const absolute = target.value.startsWith('/') || target.tilde;
    for (const cwd of absolute ? [this.ctx.cwd] : this.state.cwds) {
      if (cwd === null) {
        next.push(null);
        continue;
      }
      // `cd` is logical (bash without -P): `..` removes the previous component of $PWD as written, so
      // `cd link && cd ..` returns beside the link, where the kernel's `..` would not. Resolve the lexical
      // path from the logical cwd; what the kernel does with `..` inside other paths stays physical.
      const base = this.logical.get(cwd) ?? cwd;
      const value = cutAtNul(target.value);
      const lexical = target.tilde ? null : posix.resolve(base, value);
      if (base === '' || value === '') {
        next.push(null);
        continue;
      }
      const r =
        lexical === null
          ? this.resolve(target.value, cwd, target.tilde, true)
          : this.resolve(lexical, this.ctx.cwd, false, true);
      if (!r.certain || r.real === null) next.push(null);
      else {
        if (lexical !== null && lexical !== r.real) {
          const known = this.logical.get(r.real);
          // The same directory reached by two written paths: which one $PWD holds is not known.
          this.logical.set(r.real, known === undefined || known === lexical ? lexical : '');
        }
        next.push(
          this.planned.cwd(r.real, (p) => {
            const via = this.resolve(p, this.ctx.cwd, false, true);
            return via.certain ? via.real : null;
          }),
        );
      }
    }
    this.state.cwds = union([], next);
  }
}
