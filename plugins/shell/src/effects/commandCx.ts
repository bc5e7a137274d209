import type { Op, SubtreeFilter } from '@toolgate/core';
import type { Field } from '../state/expandWord.js';
import type { AnalysisParts } from './analysisParts.js';
import type { CommandContext, EmitOptions, PrintedPaths, Reach } from './commandContext.js';
import { unknownCommand } from './unknownCommand.js';

/** Programs that run the command they are given while they are still walking or reading. */
const INTERLEAVED = new Set(['find', 'xargs', 'parallel']);

/**
 * What a command handler sees: one small object per command (methods on the prototype, no closures), which
 * hands each request to the part of the analysis it concerns. A model holds it as a `CommandContext` only.
 */
export class CommandCx implements CommandContext {
  constructor(
    private readonly p: AnalysisParts,
    readonly name: string,
    readonly args: readonly Field[],
    private readonly depth: number,
    /** Shared by the models of this one command run (its network model and its path model). */
    private readonly memo: Map<string, unknown> = new Map(),
  ) {}

  private origin(o?: EmitOptions): string {
    return `${this.name}:${o?.tag ?? 'argv'}`;
  }
  read(f: Field, o?: EmitOptions): void {
    this.p.fields.emit(f, 'read', this.origin(o), o);
  }
  write(f: Field, o?: EmitOptions): void {
    this.p.fields.emit(f, 'write', this.origin(o), o);
  }
  emit(f: Field, op: Op, o?: EmitOptions): void {
    this.p.fields.emit(f, op, this.origin(o), o);
  }
  uncertain(reason: string, op: Op = 'write', raw = this.name): void {
    this.p.sink.uncertain(raw, op, this.name, reason);
  }
  once<T>(key: string, compute: () => T): T {
    if (this.memo.has(key)) return this.memo.get(key) as T;
    const value = compute();
    this.memo.set(key, value);
    return value;
  }
  reach(r: Reach): void {
    this.p.sink.reach({ ...r, origin: `${this.p.sink.prefix}:${r.origin ?? this.name}` });
  }
  unknownOperands(fields: readonly Field[]): void {
    unknownCommand(fields, new CommandCx(this.p, this.name, fields, this.depth));
  }
  exec(
    argv: readonly Field[],
    env?: 'other-user' | 'clean',
    vars?: readonly [string, string[] | null][],
  ): void {
    const p = this.p;
    if (this.depth + 1 > p.maxDepth)
      p.sink.uncertain(this.name, 'write', this.name, 'wrappers nested too deep');
    else {
      const run = () => p.scope.withVars(vars ?? [], () => p.walker.execWith(argv, this.depth + 1, env));
      // find -exec and xargs run their command while they walk or read: interleaved, not after.
      if (INTERLEAVED.has(this.name)) p.sink.unorderedRun(run);
      else run();
    }
  }
  script(
    text: string,
    via: string,
    o?: { sameShell?: boolean; positional?: readonly Field[]; newProcess?: boolean; posix?: boolean },
  ): void {
    this.p.walker.nestedScript(
      text,
      this.depth + 1,
      via,
      !o?.sameShell,
      o?.positional,
      o?.newProcess ?? !o?.sameShell,
      o?.posix,
    );
  }
  chdir(target: Field | null, cdpath = false, physical?: boolean): void {
    this.p.paths.chdir(target, cdpath, physical);
  }
  setExported(name: string, on: boolean): void {
    this.p.scope.setExported(name, on);
  }
  shellOption(name: 'physical' | 'allexport' | 'posix'): void {
    const scope = this.p.scope;
    if (name === 'physical') scope.physicalMaybe = true;
    else if (name === 'allexport') scope.allExport = true;
    else scope.posixMode = true;
  }
  setVar(
    name: string,
    values: string[] | null | 'unset' | 'declared',
    o?: { local?: boolean; maybe?: boolean },
  ): void {
    this.p.scope.setVar(name, values, o?.local, o?.maybe);
  }
  variable(name: string): string | null | undefined {
    return this.p.scope.variable(name);
  }
  exportFunction(name: string): void {
    this.p.scope.exportFunction(name);
  }
  dropFunction(name: string): void {
    this.p.scope.dropFunction(name);
  }
  exists(f: Field): boolean {
    return this.p.paths.exists(f);
  }
  resolveDir(f: Field): string | null {
    return this.p.paths.resolveDir(f);
  }
  plannedLink(link: Field, target: Field | null): void {
    this.p.planned.link(link, target);
  }
  taint(dir: Field): void {
    this.p.planned.taint(dir);
  }
  under(roots: readonly Field[], raw: string, filters?: readonly (SubtreeFilter | undefined)[]): Field {
    return {
      value: raw,
      raw,
      glob: -1,
      tilde: false,
      under: roots,
      ...(filters ? { underFilters: filters } : {}),
    };
  }
  globOptions(o: { dot?: boolean; nocase?: boolean }): void {
    this.p.scope.setGlobOptions(o);
  }
  readContent(
    f: Field,
    maxBytes?: number,
    skip?: readonly string[],
  ): { text: string; path: string } | { uncertain: string } {
    return this.p.paths.readContent(f, maxBytes, skip);
  }
  writtenEarlier(f: Field, skip?: readonly string[]): boolean {
    return this.p.paths.writtenEarlier(f, skip);
  }
  readBytes(f: Field, maxBytes: number): { bytes: Buffer; path: string } | { uncertain: string } {
    return this.p.paths.readBytes(f, maxBytes);
  }
  stdinFile(): Field | undefined {
    return this.p.pipe.stdinFile();
  }
  stdinPaths(): PrintedPaths | undefined {
    return this.p.pipe.input();
  }
  defineAlias(name: string): void {
    this.p.scope.defineAlias(name);
  }
  splitRoots(paths: PrintedPaths): string[] | { splits: string } | null {
    return this.p.pipe.splitRoots(paths);
  }
  takePipedPaths(roots: readonly string[]): void {
    this.p.pipe.takePipedPaths(roots);
  }
  printsPaths(paths: PrintedPaths): void {
    this.p.pipe.output(paths);
  }
  fromStdin(raw: string): Field {
    return {
      value: raw,
      raw,
      glob: -1,
      tilde: false,
      uncertain: `${this.name} takes its operands from stdin`,
    };
  }
}
