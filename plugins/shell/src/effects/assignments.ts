import type { Op } from '@toolgate/core';
import { expandAssignment, type Nested } from '../state/expandWord.js';
import { arithmetic, arraySubscripts, type CodeSink, closeSubscript } from './codeInData.js';
import type { WordExpander } from './expandFields.js';
import type { ShellScope } from './shellScope.js';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

/** POSIX special builtins: a POSIX sh keeps the assignments written before them. */
export const SPECIAL_BUILTINS: ReadonlySet<string> = new Set([
  ':',
  '.',
  'break',
  'continue',
  'eval',
  'exec',
  'exit',
  'export',
  'readonly',
  'return',
  'set',
  'shift',
  'times',
  'trap',
  'unset',
]);

/** What the evaluation of assignments needs from the walk. */
export interface AssignmentHost {
  readonly scope: ShellScope;
  readonly words: WordExpander;
  runNested(n: Nested, depth: number): void;
  codeSink(depth: number): CodeSink;
  uncertain(raw: string, op: Op, origin: string, reason: string): void;
}

/**
 * The assignments of a simple command (`X=v`, `a[SUB]=v`, `a=([SUB]=v …)`, `a+=…`), each as the name and its
 * values (`null`: not known), with the code they run analysed: substitutions in the values, and array
 * subscripts, which bash expands and then evaluates as arithmetic.
 */
export function assignmentsOf(
  host: AssignmentHost,
  assigns: readonly string[],
  depth: number,
): [string, string[] | null][] {
  const out: [string, string[] | null][] = [];
  for (const t of assigns) {
    const name = NAME.exec(t)?.[0] ?? '';
    // `a[SUB]=v`: bash expands SUB, then evaluates it as arithmetic, which runs a `$(…)` the expansion
    // left in it (`a['$(cat /etc/shadow)']=1` reads the file). An `=` inside SUB is not the assignment's.
    const close = t[name.length] === '[' ? closeSubscript(t, name.length + 1) : -1;
    if (close !== -1) subscriptCode(host, t.slice(name.length + 1, close), depth);
    const eq = t.indexOf('=', close === -1 ? name.length : close);
    const valueText = t.slice(eq + 1);
    const r = expandAssignment(valueText, host.scope.lookup);
    for (const n of r.nested) host.runNested(n, depth);
    // `a=([SUB]=v …)`: each element's subscript likewise.
    if (valueText.startsWith('(')) {
      const subs = arraySubscripts(valueText);
      if (subs === null)
        host.uncertain(t, 'write', 'code', 'cannot read the subscripts of an array assignment');
      else for (const sub of subs) subscriptCode(host, sub, depth);
    }
    let values = r.values;
    if (values && valueText.startsWith('~')) values = host.words.assignedTilde(values);
    // `a[i]=v` and `a+=v`: an element or an append, whose whole value we do not track.
    const lhs = t.slice(0, eq);
    if (lhs.includes('[') || lhs.endsWith('+')) values = null;
    out.push([name, values]);
  }
  return out;
}

/** An array subscript: expanded as a word, then evaluated as arithmetic. */
function subscriptCode(host: AssignmentHost, sub: string, depth: number): void {
  // No quotes and no command substitution: the expansion only substitutes variables (`$i`, `${#a[@]}`,
  // `$((…))`), whose values the arithmetic evaluates as expressions in turn — what `arithmetic` does.
  if (!/[`'"\\]|\$\((?!\()/.test(sub)) {
    arithmetic(sub, host.codeSink(depth));
    return;
  }
  const r = expandAssignment(sub, host.scope.lookup);
  for (const n of r.nested) host.runNested(n, depth);
  if (r.values === null)
    host.uncertain(
      sub,
      'write',
      'code',
      `the subscript [${sub}] is arithmetic (code) and its value is not known`,
    );
  else for (const v of r.values) arithmetic(v, host.codeSink(depth));
}
