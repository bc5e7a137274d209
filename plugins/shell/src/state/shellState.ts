// The shell's state while a script is walked: possible cwds, variables, functions. Copied on every branch,
// so copies share their maps until one side writes.

import type { Node, Redirect } from '../parse/ast.js';

export type VarValue = readonly string[] | null | 'unset';

/** A function definition: its body is analysed where it is called, in the state there. */
export interface FuncDef {
  body: Node;
  src: string;
  redirects: readonly Redirect[];
  /** `export -f`: child shells (`bash -c`) see it too. */
  exported: boolean;
}

/** What the shell knows at one point: possible cwds (`null` = unknown) and variables. */
export interface ShellState {
  cwds: (string | null)[];
  /**
   * Real cwd → the logical path `$PWD` holds for it where the two differ (`cd link`), `''` where it may
   * be more than one; only for the cwds in `cwds`. Never mutated, only replaced.
   */
  pwds: ReadonlyMap<string, string> | undefined;
  /**
   * Whether a variable is exported to child processes, for the names the script assigned, exported or
   * unset (`false`: certainly not); other names are exported when the environment has them. Never
   * mutated, only replaced.
   */
  exports: ReadonlyMap<string, boolean> | undefined;
  vars: Map<string, VarValue>;
  /** Functions defined so far → every definition that may be the current one (branches may differ). */
  funcs: Map<string, readonly FuncDef[]>;
  ownVars: boolean;
  ownFuncs: boolean;
}

// Copy-on-write: a clone shares the maps until either side writes (cloning is on every pipeline part and
// every `&&`, writing is rare). `cwds` arrays are never mutated in place, only replaced.
export function cloneState(s: ShellState): ShellState {
  s.ownVars = false;
  s.ownFuncs = false;
  return {
    cwds: s.cwds,
    pwds: s.pwds,
    exports: s.exports,
    vars: s.vars,
    funcs: s.funcs,
    ownVars: false,
    ownFuncs: false,
  };
}

export function writableVars(s: ShellState): Map<string, VarValue> {
  if (!s.ownVars) {
    s.vars = new Map(s.vars);
    s.ownVars = true;
  }
  return s.vars;
}

export function writableFuncs(s: ShellState): Map<string, readonly FuncDef[]> {
  if (!s.ownFuncs) {
    s.funcs = new Map(s.funcs);
    s.ownFuncs = true;
  }
  return s.funcs;
}

export function union<T>(a: readonly T[], b: readonly T[]): T[] {
  const out = [...a];
  for (const x of b) if (!out.includes(x)) out.push(x);
  return out;
}

export function mergeVar(a: VarValue | undefined, b: VarValue | undefined): VarValue | undefined {
  if (a === b) return a;
  if (a === null || b === null) return null;
  if (a === undefined || b === undefined) return null;
  if (a === 'unset' || b === 'unset') return a === b ? a : null;
  return union(a, b);
}

/** The value a variable the script never assigned has (from the environment), `'unset'` if none. */
export type Inherited = (name: string) => VarValue | undefined;

/**
 * Merges the states at the end of alternative branches: any of them may be the one that ran. A variable
 * one branch assigned and another left alone merges with its `inherited` value (from the environment), so
 * `if …; then PATH=x; fi` keeps both PATHs instead of making PATH unknown.
 */
export function merge(states: ShellState[], inherited?: Inherited): ShellState {
  const first = states[0]!;
  const out = cloneState(first);
  for (let k = 1; k < states.length; k++) {
    const s = states[k]!;
    if (s.pwds !== out.pwds) out.pwds = mergePwds(out.pwds, out.cwds, s.pwds, s.cwds);
    if (s.exports !== out.exports) out.exports = mergeExports(out.exports, s.exports, inherited);
    if (s.cwds !== out.cwds) out.cwds = union(out.cwds, s.cwds);
    if (s.vars !== out.vars) {
      const names = new Set([...out.vars.keys(), ...s.vars.keys()]);
      for (const n of names) {
        const a = out.vars.get(n);
        const b = s.vars.get(n);
        const m =
          inherited && (a === undefined) !== (b === undefined)
            ? mergeVar(a ?? inherited(n), b ?? inherited(n))
            : mergeVar(a, b);
        if (m === a) continue;
        if (m === undefined) writableVars(out).delete(n);
        else writableVars(out).set(n, m);
      }
    }
    if (s.funcs !== out.funcs) {
      for (const [n, defs] of s.funcs) {
        const mine = out.funcs.get(n);
        if (mine !== defs) writableFuncs(out).set(n, mine ? union(mine, defs) : defs);
      }
    }
  }
  if (out.cwds.length > 8) out.cwds = [null];
  return out;
}

/** The logical `$PWD` of each cwd after either of two states: where they differ, not known (`''`). */
function mergePwds(
  a: ReadonlyMap<string, string> | undefined,
  aCwds: readonly (string | null)[],
  b: ReadonlyMap<string, string> | undefined,
  bCwds: readonly (string | null)[],
): ReadonlyMap<string, string> | undefined {
  const out = new Map<string, string>();
  for (const k of new Set([...(a?.keys() ?? []), ...(b?.keys() ?? [])])) {
    const x = a?.get(k) ?? (aCwds.includes(k) ? k : undefined);
    const y = b?.get(k) ?? (bCwds.includes(k) ? k : undefined);
    const v = x === undefined ? y : y === undefined || x === y ? x : '';
    if (v !== undefined && v !== k) out.set(k, v);
  }
  if (a && out.size === a.size && [...out].every(([k, v]) => a.get(k) === v)) return a;
  return out.size > 0 ? out : undefined;
}

/** Exported after either of two states: exported in either (a name one never touched: as inherited). */
function mergeExports(
  a: ReadonlyMap<string, boolean> | undefined,
  b: ReadonlyMap<string, boolean> | undefined,
  inherited: Inherited | undefined,
): ReadonlyMap<string, boolean> | undefined {
  const out = new Map<string, boolean>();
  const fromEnv = (n: string): boolean => {
    const v = inherited?.(n);
    return v !== 'unset';
  };
  let same = a !== undefined;
  for (const k of new Set([...(a?.keys() ?? []), ...(b?.keys() ?? [])])) {
    const x = a?.get(k) ?? fromEnv(k);
    const y = b?.get(k) ?? fromEnv(k);
    out.set(k, x || y);
    if (a?.get(k) !== (x || y)) same = false;
  }
  // Unchanged: keep the same map, so that later merges of these states see identical ones.
  return same ? a : out;
}

/** Walks a parsed script with the state a shell would have, turning every command into accesses. */

/**
 * One widening step of a loop: `start` itself when `end` (start merged with the state after one more pass)
 * adds nothing to it, else a copy of `start` in which every variable that changed is unknown and, if the
 * cwd moved, the places it reached (from the second step on also an unknown one). Each step makes at least
 * one more thing unknown, so a loop reaches a fixpoint within (variables + 3) passes.
 */
export function widen(start: ShellState, end: ShellState, step: number): ShellState {
  let out: ShellState | undefined;
  const copy = (): ShellState => {
    out ??= cloneState(start);
    return out;
  };
  // An unknown cwd alone already stands for every place, whatever the body does.
  const top = start.cwds.length === 1 && start.cwds[0] === null;
  if (!top && end.cwds !== start.cwds && end.cwds.some((c) => !start.cwds.includes(c))) {
    // First change: every place seen so far (`cd /x` in a loop ends there). Still moving after that (`cd sub`
    // walks ever deeper): also unknown; and then unknown outright, so this takes at most three steps.
    const o = copy();
    const seen = union(start.cwds, end.cwds);
    o.cwds = step === 0 ? seen : start.cwds.includes(null) ? [null] : union(seen, [null]);
    o.pwds = end.pwds;
    if (o.cwds.length > 8) o.cwds = [null];
  }
  if (end.vars !== start.vars) {
    for (const [n, v] of end.vars) {
      const before = start.vars.get(n);
      if (v === before || (v === null && before === null)) continue;
      if (Array.isArray(v) && Array.isArray(before) && sameList(v, before)) continue;
      writableVars(copy()).set(n, null);
    }
    for (const n of start.vars.keys()) if (!end.vars.has(n)) writableVars(copy()).set(n, null);
  }
  if (end.funcs !== start.funcs) {
    for (const [n, defs] of end.funcs) {
      const before = start.funcs.get(n);
      if (before !== defs && !(before && sameList(before, defs))) writableFuncs(copy()).set(n, defs);
    }
  }
  // What may be exported only grows (see mergeExports): the next pass starts from it, no new map each pass.
  if (out && end.exports !== start.exports) out.exports = end.exports;
  return out ?? start;
}

function sameList<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}
