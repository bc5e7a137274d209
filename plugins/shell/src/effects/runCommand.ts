import { realpathSync } from 'node:fs';
import { posix } from 'node:path';
import { type Access, type CallContext, expandPath, uncertainAccess } from '@toolgate/core';
import { shellBuiltins } from '../programs/builtins/builtins.js';
import { reachTable } from '../programs/network/reach/reachTable.js';
import { commandTable } from '../programs/table.js';
import { type Field, fieldAsValue } from '../state/expandWord.js';
import type { FuncDef } from '../state/shellState.js';
import { writableVars } from '../state/shellState.js';
import type { AnalysisParts } from './analysisParts.js';
import { codeInArgv } from './codeInData.js';
import type { CommandContext } from './commandContext.js';
import { CommandCx } from './commandCx.js';
import { BASH_BUILTINS, lookupInPath } from './pathLookup.js';
import { DEFAULT_PATH, findProgram, type StatMemo } from './programIdentity.js';
import { writtenBefore } from './readContent.js';
import { unknownCommand } from './unknownCommand.js';

const INTEGER_DECL = new Set(['declare', 'typeset', 'local', 'export', 'readonly']);
const BIN_DIRS = new Set(['/bin', '/usr/bin', '/usr/local/bin', '/sbin', '/usr/sbin', '/usr/local/sbin']);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

/**
 * Runs an argv: an alias or a name that is not known is uncertain, a function is called, a file given by
 * path (or found on a changed $PATH) is read and, when it is a shell script, analysed; anything else goes
 * to the model the command table (or the shell's builtins) has for it, or to the unknown-command rule.
 */
export class CommandRunner {
  /** PATH directories' stat results, for this analysis only (see StatMemo). */
  private readonly statMemo: StatMemo = new Map();

  /** `programs`: mark the file each command word runs (see `ExtractOptions.programs`). */
  constructor(
    private readonly ctx: CallContext,
    private readonly parts: AnalysisParts,
    private readonly programs: boolean,
  ) {}

  /** Runs argv: looks the command up and hands it its operands. */
  exec(fields: readonly Field[], depth: number): void {
    const { sink, scope, fields: emitter } = this.parts;
    const head = fields[0];
    if (!head) return;
    sink.nextCommand();
    const args = fields.slice(1);
    if (scope.aliases.size > 0 && scope.aliasApplies(head.value)) {
      sink.uncertain(head.raw, 'write', 'command', `${head.value} may be an alias this line defines`);
      this.unknownOperands('unknown', args);
      return;
    }
    if (head.uncertain !== undefined || head.glob >= 0 || head.under || head.pipe) {
      sink.uncertain(head.raw, 'write', 'command', head.uncertain ?? 'the command name is a glob');
      this.unknownOperands('unknown', args);
      return;
    }
    let name = head.value;
    const slash = name.lastIndexOf('/');
    if (slash !== -1) {
      const dir = name.slice(0, slash) || '/';
      if (BIN_DIRS.has(dir)) name = name.slice(slash + 1);
      else {
        this.byPath(head, name, args, depth);
        return;
      }
    }
    for (const f of args) if (f.glob >= 0) emitter.globListing(f);
    codeInArgv(name, args, this.parts.walker.codeSink(depth));
    if (INTEGER_DECL.has(name) && args.some((f) => /^-[a-zA-Z]*i/.test(f.value)))
      for (const f of args) {
        const n = NAME.exec(f.value)?.[0];
        if (n && !f.value.startsWith('-')) scope.integers.add(n);
      }
    const defs = scope.state.funcs.get(name);
    if (defs) {
      this.callFunction(name, defs, args, depth);
      return;
    }
    // The table's view of the command stands in any case; elsewhere on $PATH it is also that file.
    if (slash === -1 && !BASH_BUILTINS.has(name) && scope.state.vars.has('PATH'))
      this.pathProgram(head, args);
    if (this.programs && !BASH_BUILTINS.has(name)) this.markProgram(head);
    const handler = shellBuiltins[name] ?? commandTable.get(name);
    // What the command reaches on the network is its own model, beside the path model (or the unknown rule):
    // first, so the configuration it reads is read before the command's own writes could change it.
    const once = new Map<string, unknown>();
    reachTable.get(name)?.(this.context(name, args, depth, once));
    if (!handler) {
      sink.unknownCommand(name);
      this.unknownOperands(name, args);
      return;
    }
    handler(this.context(name, args, depth, once));
  }

  /**
   * A script or program by path: it is read (executed). A shell script (its `#!` names sh, bash or dash) is
   * analysed as shell, as `bash FILE` is; a file this line writes first cannot be seen (`cat > /tmp/t.sh
   * <<EOF … EOF; chmod +x /tmp/t.sh && /tmp/t.sh` ran unseen code); anything else is a program whose own
   * effects are unknown.
   */
  private byPath(head: Field, name: string, args: readonly Field[], depth: number): void {
    const { sink, paths } = this.parts;
    this.parts.fields.emit(head, 'read', `${name}:exec`);
    const content = paths.readContent(head, 256 * 1024);
    // Written as a file by this line (a redirect, a heredoc, a copy of one file): code nobody has seen.
    // A file a whole-tree write brings (`python3 -m venv .venv && .venv/bin/pip …`) is an installed
    // program like any other.
    if (
      'uncertain' in content &&
      /written by this command line/.test(content.uncertain) &&
      paths.writtenAsFile(head)
    ) {
      sink.uncertain(
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
      this.parts.walker.nestedScript(
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
    // Not shell text we analysed: a program whose code the policy may let the agent write (program identity).
    if (this.programs)
      this.parts.fields.emit(head, 'read', `${name}:program`, { runs: `\`${head.raw}\` runs` });
    sink.unknown.push(name);
    this.unknownOperands(name, args);
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
    const scope = this.parts.scope;
    const saved = scope.envMode;
    // The words were expanded by this shell, with its own `~`, before the other user's program starts.
    const own = argv.map((f) =>
      f.tilde && /^~(\/|$)/.test(f.value) && scope.envMode === undefined
        ? { ...f, value: expandPath(f.value, this.ctx, { vars: false }).value, tilde: false }
        : f,
    );
    scope.envMode = env;
    try {
      this.exec(own, depth);
    } finally {
      scope.envMode = saved;
    }
  }

  /**
   * Runs a function's body in this shell (its cd and assignments persist, `local` ones do not) with `$1`…
   * bound to the arguments; several possible definitions are alternatives. Recursion stops at `maxDepth`.
   */
  private callFunction(name: string, defs: readonly FuncDef[], args: readonly Field[], depth: number): void {
    const { sink, scope, walker, maxDepth } = this.parts;
    if (depth + 1 > maxDepth) {
      sink.uncertain(name, 'write', 'function', `function calls nested deeper than ${maxDepth} levels`);
      return;
    }
    const positional = ['@', '*', '#', ...Array.from({ length: 10 }, (_, k) => String(k + 1))];
    const outer = new Map(positional.map((n) => [n, scope.state.vars.get(n)] as const));
    const vars = writableVars(scope.state);
    const known = args.map(fieldAsValue);
    for (let k = 1; k <= 10; k++) {
      const v = known[k - 1];
      vars.set(String(k), v === undefined ? 'unset' : v === null ? null : [v]);
    }
    vars.set('@', known.some((v) => v === null) ? null : (known as string[]));
    vars.set('*', vars.get('@')!);
    vars.set('#', [String(args.length)]);
    if (defs.some((d) => scope.calling.has(d))) {
      // Unrolling recursion costs exponential time for what a fixpoint would give; fail closed instead.
      sink.uncertain(name, 'write', 'function', `recursive call of function ${name}`);
      return;
    }
    scope.locals.push(new Map());
    scope.alternatives(
      defs.map((d) => () => {
        scope.calling.add(d);
        try {
          walker.redirects(d.redirects, d.src, depth + 1);
          walker.run(d.body, d.src, depth + 1);
        } finally {
          scope.calling.delete(d);
        }
      }),
      false,
    );
    const frame = scope.locals.pop()!;
    const after = writableVars(scope.state);
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
    const { sink, scope } = this.parts;
    const path = scope.lookup('PATH');
    if (!path) {
      sink.uncertain(
        head.value,
        'write',
        'command',
        `${head.value} is looked up through a $PATH that is not known`,
      );
      return;
    }
    for (const value of path) {
      for (const cwd of scope.state.cwds) {
        const hit = lookupInPath(head.value, value, cwd, (dir) => writtenBefore(sink.accesses, dir));
        if (hit.kind === 'system') continue;
        if (hit.kind === 'uncertain') {
          sink.uncertain(head.value, 'write', 'command', hit.reason);
          return;
        }
        this.parts.fields.emit({ ...head, value: hit.file }, 'read', `${head.value}:exec`);
        sink.unknownCommand(head.value);
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
    const { sink, scope, fields } = this.parts;
    const runs = `\`${head.raw}\` runs`;
    if (head.value.includes('/')) {
      fields.emit(head, 'read', `${posix.basename(head.value)}:program`, { runs });
      return;
    }
    const path = scope.lookup('PATH');
    if (path === null) {
      sink.uncertain(
        head.value,
        'write',
        'command',
        `${head.value} is looked up through a $PATH that is not known`,
      );
      return;
    }
    for (const value of path ?? [DEFAULT_PATH])
      for (const cwd of scope.state.cwds) {
        const hit = findProgram(
          head.value,
          value,
          cwd,
          (dir) => writtenBefore(sink.accesses, dir),
          this.statMemo,
        );
        if (hit.kind === 'uncertain') sink.uncertain(head.value, 'write', 'command', hit.reason);
        else if (hit.kind === 'found')
          sink.push(programMarker(hit.file, head.raw, `${sink.prefix}:${head.value}:program`, runs));
      }
  }

  unknownOperands(name: string, args: readonly Field[]): void {
    unknownCommand(args, this.context(name, args, 0));
  }

  private context(
    name: string,
    args: readonly Field[],
    depth: number,
    once?: Map<string, unknown>,
  ): CommandContext {
    return new CommandCx(this.parts, name, args, depth, once);
  }
}

/**
 * The marker of a program found on `$PATH`: the file exists (findProgram stat'ed it), so one realpath(3)
 * resolves it — no expansion, no existence check. When links lie on the way (`/bin -> usr/bin`, a venv's
 * `python`), the path as found is reported as a hop: core asks whether the agent could write it too.
 */
function programMarker(file: string, raw: string, origin: string, runs: string): Access {
  let real: string;
  try {
    real = realpathSync.native(file);
  } catch (error) {
    return uncertainAccess(raw, 'write', origin, `${file} cannot be resolved: ${(error as Error).message}`);
  }
  const marker: Access = {
    op: 'read',
    scope: 'path',
    raw,
    path: file,
    realPath: real,
    origin,
    certain: true,
    runs,
  };
  if (real !== file) marker.hops = [{ link: file, target: real }];
  return marker;
}
