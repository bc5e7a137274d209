import type { CallContext } from '@toolgate/core';
import { BudgetExceeded } from '../lex/budget.js';
import type { Node } from '../parse/ast.js';
import { type Field, fieldAsValue, type Lookup } from '../state/expandWord.js';
import {
  cloneState,
  type FuncDef,
  merge,
  mergeVar,
  type ShellState,
  type VarValue,
  widen,
  writableFuncs,
  writableVars,
} from '../state/shellState.js';
import type { AccessSink } from './accessSink.js';
import { arithmetic, type CodeSink } from './codeInData.js';
import type { GlobOptions } from './globFilter.js';

const DANGEROUS =
  /^(IFS|CDPATH|LD_[A-Z_]+|DYLD_[A-Z_]+|BASH_ENV|ENV|PROMPT_COMMAND|SHELLOPTS|BASHOPTS|GLOBIGNORE|BASH_FUNC_.*|PS4|GIT_[A-Z_]*(SSH|COMMAND|PAGER|EDITOR|ASKPASS|EXEC_PATH|DIR|WORK_TREE|CONFIG[A-Z_]*|EXTERNAL_DIFF)|SSH_ASKPASS|PAGER|EDITOR|VISUAL|LESSOPEN|LESSCLOSE|MANPAGER|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|NODE_OPTIONS|NODE_PATH|PERL5OPT|PERL5LIB|PERLLIB|RUBYOPT|RUBYLIB|TMPDIR)$/;

const ALWAYS_EXPORTED = new Set(['PATH', 'HOME', 'PWD', 'OLDPWD']);

/**
 * What the shell knows while the line is walked, and how it changes: the possible cwds, variables (with
 * `local` frames, integer attributes, exports to child environments), functions, aliases and glob options;
 * how branches merge and loops widen it. The cwd itself is moved by `PathScope.chdir`.
 */
export class ShellScope {
  state: ShellState;
  /** Set while analysing a command run as another user or with an emptied environment. */
  envMode: 'other-user' | 'clean' | undefined;
  /** Set while analysing code a POSIX sh may run (`sh -c`): `((…))` is also read as nested subshells. */
  posix = false;
  /** A `cd` ran: `~+`/`~-` and `$PWD` no longer mean what the environment said. */
  cdHappened = false;
  /** `shopt -s dotglob`/`nocaseglob` or `GLOBIGNORE` seen: later globs match what bash would then match. */
  readonly globOptions: GlobOptions = { dot: false, nocase: false };
  /**
   * Names this line defines as aliases, each with where it was defined: a shell that expands aliases
   * (`shopt -s expand_aliases`, which an assistant's shell snapshot may set) runs the alias's text for a
   * command of that name it reads later (see `aliasApplies`).
   */
  aliases = new Map<string, { src: string; lineEnd: number }[]>();
  /** The command being run: the text it is in and its offset there (where an alias defined now applies). */
  atSrc = '';
  atPos = 0;
  /** `set -P` / `set -o physical` seen (possibly in a branch): a plain `cd` may be physical. */
  physicalMaybe = false;
  /** `set -a` / `set -o allexport` seen: every assignment may be exported. */
  allExport = false;
  /** `set -o posix` seen: bash keeps assignments before special builtins, as a POSIX sh does. */
  posixMode = false;
  /**
   * Variables that hold one of a set of printed paths (`for f in $(git ls-files)`, `… | while read -r f`):
   * `"$f"` stands for those paths while the variable keeps that value (any assignment forgets it).
   */
  readonly pathVars = new Map<string, Field>();
  /** Variables declared integer (`declare -i`): what is assigned to them is evaluated as arithmetic. */
  readonly integers = new Set<string>();
  /** One frame per function being called: the values its `local` variables hid. */
  readonly locals: Map<string, VarValue | undefined>[] = [];
  /** Functions being called now: a recursive call is not unrolled. */
  readonly calling = new Set<FuncDef>();
  private readonly defs = new Map<Node, FuncDef>();
  private readonly exportedDefs = new Map<FuncDef, FuncDef>();

  /** `code(depth)`: where code found in an assigned value goes (an integer variable's arithmetic). */
  constructor(
    private readonly ctx: CallContext,
    private readonly sink: AccessSink,
    private readonly code: (depth: number) => CodeSink,
    cwd: string | null,
  ) {
    this.state = {
      cwds: [cwd],
      pwds: undefined,
      exports: undefined,
      vars: new Map(),
      funcs: new Map(),
      ownVars: true,
      ownFuncs: true,
    };
  }

  /** A variable's value where the script never assigned it: the call's environment (see `merge`). */
  readonly inherited = (name: string): VarValue | undefined => {
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

  readonly lookup: Lookup = (name) => {
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

  // ---------- branches ----------

  /** A copy of the state now, to branch from or to come back to. */
  snapshot(): ShellState {
    return cloneState(this.state);
  }

  /** The state after any of `states` (a variable set differently in two of them is unknown). */
  merged(states: ShellState[]): ShellState {
    return merge(states, this.inherited);
  }

  /** Runs each branch from the state now; after them the state is any of their ends (or the start). */
  alternatives(branches: (() => void)[], includeStart: boolean): void {
    const start = cloneState(this.state);
    const ends: ShellState[] = includeStart ? [start] : [];
    for (const b of branches) {
      this.state = cloneState(start);
      b();
      ends.push(this.state);
    }
    this.state = merge(ends, this.inherited);
  }

  loop(body: () => void): void {
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

  // ---------- variables ----------

  setGlobOptions(o: Partial<GlobOptions>): void {
    if (o.dot) this.globOptions.dot = true;
    if (o.nocase) this.globOptions.nocase = true;
  }

  /**
   * Sets a variable; `'unset'` removes it. `local`: only until the function being called returns (the value
   * before the call comes back then).
   */
  setVar(
    name: string,
    values: readonly string[] | null | 'unset' | 'declared',
    local = false,
    maybe = false,
  ): void {
    if (maybe && this.posix && values !== 'declared') {
      // Code a POSIX sh may run: the assignment may not happen, so the old value (or the inherited one)
      // stays possible beside the new one. Unset counts as empty: both vanish in a path (`$D/etc/x`).
      const old = this.own(name);
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
        this.sink.uncertain(name, 'write', 'code', `integer variable ${name} gets a value that is not known`);
      else for (const v of values) arithmetic(v, this.code(0));
    }
    const frame = this.locals[this.locals.length - 1];
    if (local && frame && !frame.has(name)) frame.set(name, this.state.vars.get(name));
    writableVars(this.state).set(name, values);
    if (values === 'unset') this.setExported(name, false);
    else this.assigned(name);
  }

  /** A variable's value as the script left it: `undefined` unset, `null` not known for certain. */
  variable(name: string): string | null | undefined {
    const v = this.own(name);
    if (v === undefined || v === 'unset') return undefined;
    return v === null || v.length !== 1 ? null : v[0];
  }

  /** The script's value of NAME, else the inherited one; a value the script made unknown (`null`) stays so. */
  private own(name: string): VarValue | undefined {
    const v = this.state.vars.get(name);
    return v !== undefined ? v : this.inherited(name);
  }

  /** Runs `fn` with these variables set, then puts back what they were (a command's own environment). */
  withVars(vars: readonly [string, string[] | null][], fn: () => void): void {
    if (vars.length === 0) {
      fn();
      return;
    }
    const saved = vars.map(([n]) => [n, this.state.vars.get(n)] as const);
    const savedExports = this.exportsOf(vars);
    for (const [n, v] of vars) {
      this.setVar(n, v);
      this.setExported(n, true);
    }
    fn();
    this.restoreExports(savedExports);
    const out = writableVars(this.state);
    for (const [n, v] of saved) {
      if (v === undefined) out.delete(n);
      else out.set(n, v);
    }
  }

  /** Variables that make programs run or load code of their choosing, or change how words split. */
  dangerous(name: string): void {
    if (DANGEROUS.test(name)) {
      this.sink.uncertain(
        `${name}=`,
        'write',
        'assign',
        `setting ${name} changes what programs run or how the shell reads words`,
      );
    }
  }

  // ---------- exports ----------

  /** Whether NAME is in the environment of a child process now (`undefined`: as inherited). */
  private exported(name: string): boolean {
    const e = this.state.exports?.get(name);
    if (e !== undefined) return e;
    return this.inherited(name) !== 'unset';
  }

  /** Sets whether NAME is exported (`export`, `declare -x`, `export -n`, `unset`). */
  setExported(name: string, on: boolean): void {
    if (this.state.exports?.get(name) === on) return;
    const next = new Map(this.state.exports);
    next.set(name, on);
    this.state.exports = next;
  }

  /** The export entries of these names now, to put back with `restoreExports`. */
  exportsOf(vars: readonly (readonly [string, unknown])[]): [string, boolean | undefined][] {
    return vars.map(([n]) => [n, this.state.exports?.get(n)]);
  }

  restoreExports(saved: readonly [string, boolean | undefined][]): void {
    if (saved.length === 0) return;
    const next = new Map(this.state.exports);
    for (const [n, on] of saved) {
      if (on === undefined) next.delete(n);
      else next.set(n, on);
    }
    this.state.exports = next.size > 0 ? next : undefined;
  }

  /** A plain assignment: NAME keeps the export attribute it had (or gets one under `set -a`). */
  private assigned(name: string): void {
    if (this.allExport) {
      this.setExported(name, true);
      return;
    }
    if (this.state.exports?.has(name) || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return;
    // PATH and HOME are in every real environment, whatever the call's env lists; PWD and OLDPWD follow cd.
    if (ALWAYS_EXPORTED.has(name)) return;
    if (!this.exported(name)) this.setExported(name, false);
  }

  /**
   * Another process started from this shell (`sh -c`, `bash FILE`, what `env`, `xargs`, `find -exec`
   * run) gets only exported variables in its environment: the others are unset there.
   */
  onlyExportedVariables(): void {
    const e = this.state.exports;
    if (!e) return;
    for (const [n, on] of e) if (!on && this.state.vars.has(n)) writableVars(this.state).set(n, 'unset');
    this.state.exports = undefined;
  }

  // ---------- aliases ----------

  /** `alias NAME=…` run now: it applies to commands the shell reads after this line. */
  defineAlias(name: string): void {
    const nl = this.atSrc.indexOf('\n', this.atPos);
    const def = { src: this.atSrc, lineEnd: nl === -1 ? Number.POSITIVE_INFINITY : nl };
    this.aliases.set(name, [...(this.aliases.get(name) ?? []), def]);
  }

  /**
   * Whether NAME, run now, may be an alias this line defined. Bash and dash read a whole line (a complete
   * command: all of an `if`, a `{ … }`, `a &&\n b`) before running any of it, so an alias applies only to
   * what is read after that: later lines of the same text, or text read later (`eval`, `source`, a
   * `$(…)`, which bash parses when it runs), never the rest of its own line.
   */
  aliasApplies(name: string): boolean {
    const defs = this.aliases.get(name);
    if (!defs) return false;
    return defs.some((d) => d.src !== this.atSrc || this.atPos > d.lineEnd);
  }

  /** `bash -c SCRIPT NAME ARGS…`: $0 is NAME, $1… the ARGS; past them the parameters are empty. */
  setPositional(positional: readonly Field[]): void {
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

  // ---------- functions ----------

  /** Defines a function (one object per definition, so that a loop redefining it reaches its fixpoint). */
  defineFunction(node: Extract<Node, { t: 'func' }>, src: string): void {
    let def = this.defs.get(node);
    if (!def) {
      def = { body: node.body, src, redirects: node.redirects, exported: false };
      this.defs.set(node, def);
    }
    writableFuncs(this.state).set(node.name, [def]);
  }

  dropFunction(name: string): void {
    if (this.state.funcs.has(name)) writableFuncs(this.state).delete(name);
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

  /** Another shell process (`bash -c`) knows only exported functions; the rest are programs there. */
  onlyExportedFunctions(): void {
    for (const [n, defs] of this.state.funcs) {
      const exported = defs.filter((d) => d.exported);
      if (exported.length !== defs.length)
        exported.length === 0
          ? writableFuncs(this.state).delete(n)
          : writableFuncs(this.state).set(n, exported);
    }
  }
}
