/** A word is a slice of the original command text: quoting is re-read from the source, never from a parser's output. */
export interface WordRef {
  s: number;
  e: number;
}

export type RedirectKind = 'file' | 'dup' | 'heredoc' | 'herestring';

export interface Redirect {
  /** Normalised operator: `<`, `>`, `>>`, `>|`, `<>`, `>&`, `<&`, `<<`, `<<<`. */
  op: string;
  fd?: number;
  target: WordRef;
  kind: RedirectKind;
}

export type Node =
  | { t: 'cmd'; assigns: WordRef[]; words: WordRef[]; redirects: Redirect[] }
  | { t: 'and' | 'or'; left: Node; right: Node }
  | { t: 'seq'; items: Node[] }
  | { t: 'pipe'; items: Node[] }
  | { t: 'bg'; node: Node }
  | { t: 'subshell' | 'group'; body: Node; redirects: Redirect[] }
  | { t: 'if'; clause: Node; consequent: Node; alternate?: Node; redirects: Redirect[] }
  | { t: 'loop'; clause: Node; body: Node; redirects: Redirect[] }
  | { t: 'for'; name: string; list?: WordRef[]; body: Node; redirects: Redirect[] }
  | { t: 'case'; word: WordRef; items: { patterns: WordRef[]; body?: Node }[]; redirects: Redirect[] }
  | { t: 'func'; name: string; body: Node; redirects: Redirect[] }
  /** `! pipeline`: runs it, but success and failure swap (what follows `&&` may see the state before). */
  | { t: 'not'; node: Node }
  /** `((…))`: arithmetic, no paths; its text is kept to look for substitutions. */
  | { t: 'arith'; text: WordRef };

/** A heredoc body: data, never commands. Unquoted delimiters still expand `$(…)` inside it. */
export interface HeredocBody {
  s: number;
  e: number;
  expands: boolean;
}

export interface Script {
  src: string;
  root: Node;
  heredocs: HeredocBody[];
  /** Whether the hand-written fast path produced it (bash-parser otherwise). */
  fast: boolean;
}
