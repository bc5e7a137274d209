import { isWithin } from '@toolgate/core';
import type { Node, Redirect, Script } from '../parse/ast.js';
import { unsplittableBeneath, XARGS_SPLITS } from '../programs/files/xargsNames.js';
import { keepsLines } from '../programs/text/lineFilters.js';
import { type Field, PLAIN_WORD } from '../state/expandWord.js';
import type { AccessSink } from './accessSink.js';
import type { PrintedPaths } from './commandContext.js';
import type { PathScope } from './pathScope.js';
import type { ShellScope } from './shellScope.js';

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

function text(w: { s: number; e: number }, src: string): string {
  return src.slice(w.s, w.e);
}

/**
 * What flows between the commands of a line: the paths a command prints (`find`, `git ls-files`) and the
 * next one takes from its stdin (`xargs`, `while read -r f`) or a `$(…)` hands to its command, the file a
 * command's stdin is redirected from, and the check after the line that paths split at blanks stayed whole.
 */
export class PipeFlow {
  /** The pipeline stage being analysed: what its stdin carries and what its command prints. */
  private stage: PipeStage | undefined;
  /** The stage whose own command is running now (not a command nested in its words or in a script). */
  private activeStage: PipeStage | undefined;
  /** What a pipeline's last command prints, when it is paths of a known set. */
  private readonly pipeOuts = new WeakMap<Node, PrintedPaths>();
  /** Set while a `$(…)` that is a whole word runs: what its script prints, when it is known paths. */
  private capture: { printed?: PrintedPaths } | undefined;
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

  constructor(
    private readonly sink: AccessSink,
    private readonly scope: ShellScope,
    private readonly paths: PathScope,
  ) {}

  // ---------- around the walk ----------

  /** Runs a script's tree; with `N>&M` in bash-parser's text, what a pipe carries is only read from our parse. */
  inTree(script: Script, run: () => void): void {
    const outerExact = this.exactTree;
    this.exactTree = exactRedirects(script);
    try {
      run();
    } finally {
      this.exactTree = outerExact;
    }
  }

  /** Runs nested code; for a whole-word `$(…)`, notes what its one command (or pipeline) prints. */
  inScript(script: Script, run: () => void): void {
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
      run();
    } finally {
      this.stage = outerStage;
    }
    if (capture) {
      const printed = own ? own.output : root.t === 'pipe' ? this.pipeOuts.get(root) : undefined;
      if (printed) capture.printed = printed;
    }
  }

  /** Runs a whole-word `$(…)`: the paths it prints, when they are a known set. */
  captured(run: () => void): PrintedPaths | undefined {
    const capture: { printed?: PrintedPaths } = {};
    this.capture = capture;
    try {
      run();
    } finally {
      this.capture = undefined;
    }
    return capture.printed;
  }

  /**
   * Runs the parts of a pipeline (or a background job), each in a subshell, at the same time as each other:
   * a part that prints known paths hands them to the next one that reads its pipe.
   */
  pipeline(node: Extract<Node, { t: 'pipe' | 'bg' }>, src: string, runPart: (n: Node) => void): void {
    const items = node.t === 'pipe' ? node.items : [node.node];
    // `|&` sends stderr down the pipe too (messages, not paths): no stage then carries known paths.
    const stdoutOnly = node.t === 'pipe' && !src.includes('|&') && this.exactTree;
    this.sink.unorderedRun(() => {
      let printed: PrintedPaths | undefined;
      for (const n of items) {
        const saved = this.scope.snapshot();
        const outer = this.stage;
        const stage: PipeStage = { node: n, ...(printed && readsPipe(n) ? { input: printed } : {}) };
        this.stage = stage;
        const reader = printed && !printed.nul ? this.readLoop(n, src) : undefined;
        const outerReader = this.readerClause;
        if (reader && printed && this.substitutedPathsSplit(printed))
          this.readerClause = { ...reader, paths: this.under(printed, `$${reader.name}`) };
        try {
          runPart(n);
        } finally {
          this.stage = outer;
          this.readerClause = outerReader;
        }
        printed = stdoutOnly && printsToPipe(n) ? stage.output : undefined;
        this.scope.state = saved;
      }
      if (node.t === 'pipe' && printed) this.pipeOuts.set(node, printed);
    });
  }

  /** Runs a simple command (`exec`) as the active stage of its pipeline, with its stdin redirect known. */
  command(node: Extract<Node, { t: 'cmd' }>, src: string, fields: readonly Field[], exec: () => void): void {
    const active = this.activeStage;
    const stage = this.stage?.node === node ? this.stage : undefined;
    this.activeStage = stage;
    const outerStdin = this.stdinRedirect;
    this.stdinRedirect = node.redirects.length > 0 ? { redirects: node.redirects, src } : undefined;
    const start = this.sink.accesses.length;
    try {
      exec();
      if (stage?.output && stage.output !== stage.input)
        this.printers.set(stage.output, [start, this.sink.accesses.length]);
      if (this.readerClause?.node === node)
        this.scope.pathVars.set(this.readerClause.name, this.readerClause.paths);
      // A line filter between the paths and their taker passes them on (`| grep -v test |`).
      if (stage?.input && !stage.input.nul && !stage.output && keepsLines(fields)) stage.output = stage.input;
    } finally {
      this.activeStage = active;
      this.stdinRedirect = outerStdin;
      if (stage?.take) {
        stage.take.to = this.sink.accesses.length;
        this.takes.push(stage.take);
      }
    }
  }

  // ---------- what a command asks ----------

  /** The running command's stdin file (`< FILE`, the last one given), when its name is plain. */
  stdinFile(): Field | undefined {
    // Read only when a program asks (patch): most commands never do.
    const at = this.stdinRedirect;
    if (!at) return undefined;
    const r = at.redirects.findLast((x) => x.op === '<' && (x.fd ?? 0) === 0);
    if (!r) return undefined;
    const name = text(r.target, at.src);
    return PLAIN_WORD.test(name) ? { value: name, raw: name, glob: -1, tilde: false } : undefined;
  }

  /** What the running command's stdin carries, when it is a pipeline stage fed known paths. */
  input(): PrintedPaths | undefined {
    return this.activeStage?.input;
  }

  /** The running command prints these paths: the next stage of its pipeline may take them. */
  output(paths: PrintedPaths): void {
    if (this.activeStage) this.activeStage.output = paths;
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
      from: this.sink.accesses.length,
      to: Number.POSITIVE_INFINITY,
      ...(printer ? { printer } : {}),
    };
  }

  /**
   * Whether printed paths arrive one a field when split at blanks (by xargs, or by the shell for a `$(…)`):
   * the roots' real directories when no name there splits (the printer checked its names, or none exists
   * beneath the roots now); the reason one does; `null` when it cannot be told.
   */
  splitRoots(paths: PrintedPaths): string[] | { splits: string } | null {
    const reals: string[] = [];
    for (const [k, root] of paths.roots.entries()) {
      const real = this.paths.resolveDir(root);
      if (real === null) return null;
      const why = paths.checked ? undefined : unsplittableBeneath(real, root.value, paths.filters[k], paths);
      if (why === null) return null;
      if (why !== undefined) return { splits: why };
      reals.push(real);
    }
    return reals;
  }

  /**
   * Paths a `$(…)` prints become one field each only when no name splits at the default IFS or globs: the
   * printer checked its names (git's index), or none exists beneath the roots now and the line does not
   * create one (as for xargs, whose split characters include these).
   */
  substitutedPathsSplit(paths: PrintedPaths): boolean {
    if (this.scope.lookup('IFS') !== undefined) return false;
    const reals = this.splitRoots(paths);
    if (!Array.isArray(reals)) return false;
    const printer = this.printers.get(paths);
    this.takes.push({
      roots: reals,
      from: this.sink.accesses.length,
      to: this.sink.accesses.length,
      ...(printer ? { printer } : {}),
    });
    return true;
  }

  /** A field standing for every path of a printed set (as find's `{}` does). */
  under(paths: PrintedPaths, raw: string): Field {
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

  /**
   * After the line: a path taken from a pipe and split at blanks is one item only if no name beneath its
   * roots holds a blank or quote. What existed was checked when it was taken; a write of the same line into
   * the roots (other than the taking command's own) may create such a name: then the split is unknown.
   */
  checkPipedNames(): void {
    const accesses = this.sink.accesses;
    for (const take of this.takes) {
      const bad = accesses.find(
        (a, k) =>
          (k < take.from || k >= take.to) &&
          (take.printer === undefined || k < take.printer[0] || k >= take.printer[1]) &&
          a.op === 'write' &&
          !this.sink.removals.has(a) &&
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
        this.sink.uncertain(
          '<stdin>',
          'read',
          'xargs',
          `the line writes ${bad.path} where the paths xargs splits come from: a new name may split into other paths`,
        );
    }
  }

  /**
   * `while read -r NAME; do …; done` (an `IFS=…` prefix allowed) reading its stdin: NAME takes one whole line
   * a time. Not when the loop has its own `<`, or `read` is a function of the script.
   */
  private readLoop(n: Node, src: string): { node: Node; name: string } | undefined {
    if (n.t !== 'loop' || !readsPipe({ t: 'cmd', assigns: [], words: [], redirects: n.redirects }))
      return undefined;
    const c = n.clause;
    if (c.t !== 'cmd' || c.redirects.length > 0 || this.scope.state.funcs.has('read')) return undefined;
    if (c.assigns.some((a) => !text(a, src).startsWith('IFS='))) return undefined;
    const words = c.words.map((w) => text(w, src));
    const name = words.length === 3 && words[1] === '-r' ? words[2] : undefined;
    return words[0] === 'read' && name !== undefined && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name)
      ? { node: c, name }
      : undefined;
  }
}
