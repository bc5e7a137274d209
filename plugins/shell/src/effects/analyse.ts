import { type CallContext, expandPath, type Op } from '@toolgate/core';
import { tick } from '../lex/budget.js';
import { findMetacharacters } from '../lex/findMetacharacters.js';
import { ShellParseError } from '../lex/parseError.js';
import type { Node, Redirect, Script, WordRef } from '../parse/ast.js';
import { parseScript } from '../parse/parseScript.js';
import { type Field, fieldAsValue, heredocSubstitutions, type Nested } from '../state/expandWord.js';
import { mergeVar, type ShellState, union, type VarValue, writableVars } from '../state/shellState.js';
import { AccessSink } from './accessSink.js';
import { assignmentsOf, SPECIAL_BUILTINS } from './assignments.js';
import { arithmetic, type CodeSink } from './codeInData.js';
import { devSocket } from './devSocket.js';
import { WordExpander } from './expandFields.js';
import type { ExtractOptions } from './extractTypes.js';
import { FieldAccesses } from './fieldAccesses.js';
import { PathScope } from './pathScope.js';
import { PipeFlow } from './pipeFlow.js';
import { PlannedChanges } from './plannedChanges.js';
import { PlannedPaths } from './plannedPaths.js';
import { CommandRunner } from './runCommand.js';
import { ShellScope } from './shellScope.js';
import type { Walker } from './walker.js';

function text(w: WordRef, src: string): string {
  return src.slice(w.s, w.e);
}

/**
 * The walk of a parsed script: each construct in the order bash runs it, with the shell's state branched and
 * merged as control flow allows. The parts it walks with, one concern each: `AccessSink` (what was found),
 * `ShellScope` (variables, functions), `PathScope` (where paths lead, the cwd), `FieldAccesses` (a word's
 * accesses), `PlannedPaths` (links the line creates), `PipeFlow` (paths between commands), `WordExpander`
 * and `CommandRunner` (an argv to its program's model).
 */
export class Analyser implements Walker {
  readonly sink: AccessSink;
  private readonly scope: ShellScope;
  private readonly fields: FieldAccesses;
  private readonly pipe: PipeFlow;
  private readonly words: WordExpander;
  private readonly runner: CommandRunner;
  private readonly maxDepth: number;

  constructor(
    private readonly ctx: CallContext,
    private readonly options: ExtractOptions,
    cwd: string | null,
  ) {
    this.maxDepth = options.maxDepth ?? 8;
    const sink = new AccessSink(options.originPrefix ?? 'shell');
    const scope = new ShellScope(ctx, sink, (depth) => this.codeSink(depth), cwd);
    const changes = new PlannedChanges();
    const paths = new PathScope(ctx, scope, sink, changes);
    const planned = new PlannedPaths(ctx, scope, paths, sink, changes);
    const fields = new FieldAccesses(ctx, sink, scope, paths, planned);
    const pipe = new PipeFlow(sink, scope, paths);
    this.sink = sink;
    this.scope = scope;
    this.fields = fields;
    this.pipe = pipe;
    this.words = new WordExpander(ctx, scope, pipe, this);
    const parts = { sink, scope, paths, fields, planned, pipe, walker: this, maxDepth: this.maxDepth };
    this.runner = new CommandRunner(ctx, parts, options.programs === true);
  }

  /** After the line: paths split from a pipe that a later write may have changed (see `PipeFlow`). */
  checkPipedNames(): void {
    this.pipe.checkPipedNames();
  }

  private uncertain(raw: string, op: Op, origin: string, reason: string): void {
    this.sink.uncertain(raw, op, origin, reason);
  }

  private get state(): ShellState {
    return this.scope.state;
  }
  private set state(s: ShellState) {
    this.scope.state = s;
  }

  /** Code found inside a word: a command substitution, an arithmetic expression, a prompt string. */
  runNested(n: Nested, depth: number): void {
    if (n.origin === 'arithmetic') arithmetic(n.text, this.codeSink(depth));
    else if (n.origin === 'unknown-code')
      this.uncertain(n.text, 'write', 'prompt', `${n.text} runs the $(…) in a value that is not known`);
    else if (n.origin === 'prompt') {
      for (const m of heredocSubstitutions(n.text, this.scope.lookup)) this.runNested(m, depth);
    } else this.nestedScript(n.text, depth + 1, n.origin, true);
  }

  execWith(argv: readonly Field[], depth: number, env?: 'other-user' | 'clean'): void {
    this.runner.execWith(argv, depth, env);
  }

  codeSink(depth: number): CodeSink {
    return {
      lookup: this.scope.lookup,
      code: (text, via) => this.nestedScript(text, depth + 1, via, true),
      uncertain: (raw, reason) => this.uncertain(raw, 'write', 'code', reason),
    };
  }

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
    this.sink.addMetacharacters(findMetacharacters(text));
    const scope = this.scope;
    const saved = isolated ? scope.snapshot() : undefined;
    // Another process: only exported functions and variables reach it, and no aliases.
    const outerAliases = scope.aliases;
    if (newProcess) {
      scope.onlyExportedFunctions();
      scope.onlyExportedVariables();
      scope.aliases = new Map();
    }
    if (positional) scope.setPositional(positional);
    const outerPosix = scope.posix;
    if (posix !== undefined) scope.posix = posix;
    try {
      this.pipe.inScript(script, () => this.script(script, depth));
    } finally {
      scope.posix = outerPosix;
      scope.aliases = outerAliases;
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
          for (const n of heredocSubstitutions(body, this.scope.lookup)) this.runNested(n, depth);
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
    this.pipe.inTree(script, () => this.run(script.root, script.src, depth));
  }

  redirects(list: readonly Redirect[], src: string, depth: number): void {
    for (const r of list) {
      const raw = text(r.target, src);
      if (r.kind === 'heredoc') continue;
      const fields = this.words.expand(raw, depth);
      if (r.kind === 'herestring') continue;
      for (const f of fields) {
        if (r.kind === 'dup') {
          // `2>&1`, `>&-`: file descriptors; `>&file` (bash) writes the file.
          if (/^(?:\d+-?|-)$/.test(f.value) && f.uncertain === undefined) continue;
          if (!devSocket(this.sink, f, r.op === '<&' ? 'read' : 'write'))
            this.fields.emit(f, r.op === '<&' ? 'read' : 'write', 'redirect');
          continue;
        }
        const op: Op = r.op === '<' ? 'read' : 'write';
        // `/dev/tcp/HOST/PORT`: a socket bash opens (a reach), not a file.
        if (!devSocket(this.sink, f, op)) this.fields.emit(f, op, 'redirect');
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
    const scope = this.scope;
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
        const ends: ShellState[] = [scope.snapshot()];
        for (const part of chain) {
          this.run(part, src, depth);
          ends.push(scope.snapshot());
        }
        this.state = scope.merged(ends);
        return;
      }
      case 'or': {
        // `A || B`: B runs after A failed (A may have changed nothing or everything it does).
        const start = scope.snapshot();
        this.run(node.left, src, depth);
        const afterLeft = scope.snapshot();
        this.state = scope.merged([start, afterLeft]);
        this.run(node.right, src, depth);
        this.state = scope.merged([afterLeft, this.state]);
        return;
      }
      case 'pipe':
      case 'bg':
        // Every part of a pipeline, and a background job, runs in a subshell; the parts of a pipeline run at
        // the same time, a background job beside what follows it.
        this.pipe.pipeline(node, src, (n) => this.run(n, src, depth));
        return;
      case 'subshell': {
        this.redirects(node.redirects, src, depth);
        const saved = scope.snapshot();
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
        const start = scope.snapshot();
        this.run(node.clause, src, depth);
        const afterClause = scope.snapshot();
        this.run(node.consequent, src, depth);
        const afterThen = this.state;
        this.state = scope.merged([start, afterClause]);
        if (node.alternate) this.run(node.alternate, src, depth);
        this.state = scope.merged([afterThen, this.state]);
        return;
      }
      case 'loop':
        this.redirects(node.redirects, src, depth);
        this.run(node.clause, src, depth);
        this.sink.unorderedRun(() =>
          scope.loop(() => {
            this.run(node.body, src, depth);
            this.run(node.clause, src, depth);
          }),
        );
        return;
      case 'for':
        this.forLoop(node, src, depth);
        return;
      case 'case': {
        this.redirects(node.redirects, src, depth);
        this.words.expand(text(node.word, src), depth);
        // Patterns are expanded too: a `$(…)` in one runs.
        for (const item of node.items) for (const p of item.patterns) this.words.expand(text(p, src), depth);
        const branches = node.items.map((item) => () => item.body && this.run(item.body, src, depth));
        scope.alternatives(branches, true);
        return;
      }
      case 'func': {
        // Analysed where it is called, with the state there (what `~`, `$X` or the cwd mean then) — and
        // here as well, in a subshell, with unknown arguments: a persistent shell may call it later.
        const saved = scope.snapshot();
        this.redirects(node.redirects, src, depth);
        this.run(node.body, src, depth);
        this.state = saved;
        scope.defineFunction(node, src);
        return;
      }
      case 'not': {
        // Success and failure swap: a later `&&` may run in the state from before this part.
        const before = scope.snapshot();
        this.run(node.node, src, depth);
        this.state = scope.merged([before, this.state]);
        return;
      }
      case 'arith': {
        // bash: an arithmetic command. POSIX sh (dash) has none: `((cat X))` is a subshell in a subshell
        // there, so where the shell may be sh both readings are analysed.
        const t = text(node.text, src);
        arithmetic(t.replace(/^\s*\(\(|\)\)\s*$/g, ''), this.codeSink(depth));
        if (scope.posix) this.nestedScript(`( ${t.trim().slice(1)}`, depth + 1, 'posix-subshell', true);
        return;
      }
    }
  }

  private forLoop(node: Extract<Node, { t: 'for' }>, src: string, depth: number): void {
    this.redirects(node.redirects, src, depth);
    let values: string[] | null = [];
    const listed: Field[] = [];
    if (!node.list) values = null;
    else {
      for (const w of node.list) {
        // bash expands a tilde prefix in the word list (`for f in ~/.ssh/*` walks $HOME/.ssh): the value
        // the variable takes is the expanded one, not a literal `~` a later "$f" keeps.
        for (const f of this.words.expand(text(w, src), depth).flatMap((x) => this.words.tildeNow(x))) {
          listed.push(f);
          let g = f;
          if (g.tilde) {
            const e = expandPath(g.value, this.ctx, { vars: false }).value;
            g = { ...g, value: e, tilde: false, glob: g.glob >= 0 ? g.glob + e.length - g.value.length : -1 };
          }
          const v = fieldAsValue(g);
          if (v === null) values = null;
          else values?.push(v);
        }
      }
    }
    if (values !== null && values.length === 0) return;
    this.scope.setVar(node.name, values);
    // `for f in $(git ls-files)`: f is one of the printed paths.
    if (values === null && listed.length === 1 && listed[0]!.under)
      this.scope.pathVars.set(node.name, listed[0]!);
    this.sink.unorderedRun(() => this.scope.loop(() => this.run(node.body, src, depth)));
  }

  private command(node: Extract<Node, { t: 'cmd' }>, src: string, depth: number): void {
    const scope = this.scope;
    // Assignments: values are tracked for what follows (or for this command only, with a command).
    const temp =
      node.assigns.length === 0
        ? []
        : assignmentsOf(
            {
              scope,
              words: this.words,
              runNested: (n, d) => this.runNested(n, d),
              codeSink: (d) => this.codeSink(d),
              uncertain: (raw, op, origin, reason) => this.uncertain(raw, op, origin, reason),
            },
            node.assigns.map((a) => text(a, src)),
            depth,
          );
    if (node.words.length === 0) {
      for (const [n, v] of temp) scope.setVar(n, v);
      this.redirects(node.redirects, src, depth);
      return;
    }
    // `X=/etc cat $X/passwd`: bash expands the *old* value of X in the arguments; judge both.
    const saved = new Map<string, VarValue | undefined>();
    const head = text(node.words[0]!, src);
    for (const [n, v] of temp) {
      // `IFS=, read -r a b`: the read builtin alone splits with it (a function of that name would not).
      const reader = n === 'IFS' && /^(read|mapfile|readarray)$/.test(head) && !this.state.funcs.has(head);
      if ((v === null || v.some((x) => x !== '') || n === 'IFS') && !reader) scope.dangerous(n);
      const old = scope.lookup(n);
      saved.set(n, this.state.vars.get(n));
      const uses = node.words.some((w) => new RegExp(`\\$\\{?${n}\\b`).test(text(w, src)));
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
    const conditional = head === '[[';
    for (const w of node.words) {
      const t = text(w, src);
      fields.push(...(conditional ? this.words.expandUnsplit(t, depth) : this.words.expand(t, depth)));
    }
    this.redirects(node.redirects, src, depth);
    // The command itself runs with the new values in its environment: a child shell (`HOME=/etc bash -c
    // 'cat ~/shadow'`) expands `~` from them, as does `cd` with no operand.
    // `HOME=/etc cat ~/x`: bash expands `~` before the assignment takes effect — resolve it now.
    if (temp.length > 0) fields.splice(0, fields.length, ...fields.flatMap((f) => this.words.tildeNow(f)));
    for (const [n, v] of temp) writableVars(this.state).set(n, v);
    // They are in the command's environment: exported to what it starts.
    const savedExports = scope.exportsOf(temp);
    for (const [n] of temp) scope.setExported(n, true);
    const outerSrc = scope.atSrc;
    const outerPos = scope.atPos;
    scope.atSrc = src;
    scope.atPos = node.words[0]!.s;
    this.pipe.command(node, src, fields, () => this.runner.exec(fields, depth));
    scope.atSrc = outerSrc;
    scope.atPos = outerPos;
    scope.restoreExports(savedExports);
    for (const [n, v] of saved) {
      if (v === undefined) writableVars(this.state).delete(n);
      else writableVars(this.state).set(n, v);
    }
    // A POSIX sh (dash; bash under `set -o posix`) keeps the assignments before a special builtin
    // (`HOME=/etc :; cat ~/shadow` reads /etc/shadow there); bash otherwise does not: either value.
    const cmd = fields[0];
    if (
      (scope.posix || scope.posixMode) &&
      cmd &&
      SPECIAL_BUILTINS.has(cmd.value) &&
      cmd.uncertain === undefined
    )
      for (const [n, v] of temp) {
        const old = saved.get(n) ?? scope.inherited(n);
        scope.setVar(n, mergeVar(old === undefined || old === 'unset' ? [''] : old, v) ?? null);
      }
  }
}
