import { type CallContext, expandPath } from '@toolgate/core';
import { tick } from '../lex/budget.js';
import { ShellParseError } from '../lex/parseError.js';
import {
  type Expanded,
  expandAssignment,
  expandWord,
  type Field,
  type Nested,
  PLAIN_WORD,
} from '../state/expandWord.js';
import { tildeMeaning } from '../state/tildePrefix.js';
import type { PipeFlow } from './pipeFlow.js';
import type { ShellScope } from './shellScope.js';
import type { Walker } from './walker.js';

/** A word that is one variable alone: `$f`, `"$f"`, `${f}`, `"${f}"`. */
const PATH_VAR = /^"?\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))"?$/;

/** The word is one unquoted `$(…)` or backtick substitution, split into fields and globbed by the shell. */
function wholeSubstitution(raw: string, n: Nested): boolean {
  return (
    (n.origin === 'substitution' && raw === `$(${n.text})`) ||
    (n.origin === 'backtick' && raw === `\`${n.text}\``)
  );
}

/**
 * A word of the script as the fields the command receives, in the shell's state now: the code it runs
 * (`$(…)`) is walked, a whole-word `$(…)` that prints known paths stands for them, a tilde prefix is
 * expanded where the shell expands it before the command's own assignments take effect.
 */
export class WordExpander {
  constructor(
    private readonly ctx: CallContext,
    private readonly scope: ShellScope,
    private readonly pipe: PipeFlow,
    private readonly walker: Walker,
  ) {}

  expand(raw: string, depth: number): Field[] {
    tick();
    // Most words are plain: nothing to expand, quote or glob.
    if (PLAIN_WORD.test(raw)) return [{ value: raw, raw, glob: -1, tilde: false }];
    const pathVars = this.scope.pathVars;
    if (pathVars.size > 0) {
      const m = PATH_VAR.exec(raw);
      const name = m?.[1] ?? m?.[2];
      const paths = name === undefined ? undefined : pathVars.get(name);
      if (paths && name !== undefined && this.scope.lookup(name) === null) return [{ ...paths, raw }];
    }
    let ex: Expanded;
    try {
      ex = expandWord(raw, this.scope.lookup);
    } catch (err) {
      if (!(err instanceof ShellParseError)) throw err;
      return [{ value: raw, raw, glob: -1, tilde: false, uncertain: `cannot parse word: ${err.message}` }];
    }
    const whole =
      ex.nested.length === 1 && ex.fields.length === 1 ? wholeSubstitution(raw, ex.nested[0]!) : false;
    for (const n of ex.nested) {
      if (!whole) {
        this.walker.runNested(n, depth);
        continue;
      }
      const paths = this.pipe.captured(() => this.walker.runNested(n, depth));
      if (paths && !paths.nul && this.pipe.substitutedPathsSplit(paths)) return [this.pipe.under(paths, raw)];
    }
    return ex.fields;
  }

  /** A word inside `[[ … ]]`: expanded without field splitting or globbing (bash does neither there). */
  expandUnsplit(raw: string, depth: number): Field[] {
    if (PLAIN_WORD.test(raw)) return [{ value: raw, raw, glob: -1, tilde: false }];
    const r = expandAssignment(raw, this.scope.lookup);
    for (const n of r.nested) this.walker.runNested(n, depth);
    const tilde = /^~[^'"]*$/.test(raw.split('/')[0]!);
    if (r.values?.length === 1) return [{ value: r.values[0]!, raw, glob: -1, tilde }];
    const reason =
      r.values === null ? 'a value inside [[ … ]] is not known' : 'a value inside [[ … ]] has several values';
    return [{ value: '', raw, glob: -1, tilde: false, uncertain: reason }];
  }

  /** A field's tilde prefix expanded in the state as it is now (not when the command runs). */
  tildeNow(f: Field): Field[] {
    if (!f.tilde) return [f];
    const s = this.scope;
    const t = tildeMeaning(f.value, s.state.vars, s.lookup, s.cdHappened);
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
  assignedTilde(values: string[]): string[] | null {
    const s = this.scope;
    const out: string[] = [];
    for (const v of values) {
      const t = tildeMeaning(v, s.state.vars, s.lookup, s.cdHappened);
      if (t.kind === 'uncertain') return null;
      if (t.kind === 'values') out.push(...t.values);
      else if (t.kind === 'literal') out.push(v);
      else if (t.kind === 'cwd') {
        const pwd = s.lookup('PWD');
        if (!pwd) return null;
        out.push(...pwd.map((p) => p + t.rest));
      } else out.push(expandPath(v, this.ctx, { vars: false }).value);
    }
    return out;
  }
}
