import type { Node, Redirect } from '../parse/ast.js';
import type { Field, Nested } from '../state/expandWord.js';
import type { CodeSink } from './codeInData.js';

/** The walk of the tree, as the parts it hands work back to (expansion, command running) call it. */
export interface Walker {
  run(node: Node, src: string, depth: number): void;
  redirects(list: readonly Redirect[], src: string, depth: number): void;
  /** Code found inside a word: a command substitution, an arithmetic expression, a prompt string. */
  runNested(n: Nested, depth: number): void;
  /** Analyses nested code. `isolated`: runs in a subshell (its cd and assignments do not leak). */
  nestedScript(
    text: string,
    depth: number,
    via: string,
    isolated: boolean,
    positional?: readonly Field[],
    newProcess?: boolean,
    posix?: boolean,
  ): void;
  /** Runs a command given as argv (wrappers, `xargs`): as another user (`sudo`) or with an emptied environment. */
  execWith(argv: readonly Field[], depth: number, env?: 'other-user' | 'clean'): void;
  /** Where code hidden in data goes (see `codeInData.ts`). */
  codeSink(depth: number): CodeSink;
}
