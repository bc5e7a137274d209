import type { Op, SubtreeFilter } from '@toolgate/core';
import type { Field } from '../state/expandWord.js';
import type { Analyser } from './analyse.js';
import type { CommandContext, EmitOptions, PrintedPaths } from './extractTypes.js';
import { unknownCommand } from './unknownCommand.js';

/** What a command handler sees: one small object per command (methods on the prototype, no closures). */
/** Programs that run the command they are given while they are still walking or reading. */
const INTERLEAVED = new Set(['find', 'xargs', 'parallel']);

export class CommandCx implements CommandContext {
  constructor(
    private readonly a: Analyser,
    readonly name: string,
    readonly args: readonly Field[],
    private readonly depth: number,
  ) {}

  private origin(o?: EmitOptions): string {
    return `${this.name}:${o?.tag ?? 'argv'}`;
  }
  read(f: Field, o?: EmitOptions): void {
    this.a.emit(f, 'read', this.origin(o), o);
  }
  write(f: Field, o?: EmitOptions): void {
    this.a.emit(f, 'write', this.origin(o), o);
  }
  emit(f: Field, op: Op, o?: EmitOptions): void {
    this.a.emit(f, op, this.origin(o), o);
  }
  uncertain(reason: string, op: Op = 'write', raw = this.name): void {
    this.a.uncertain(raw, op, this.name, reason);
  }
  unknownOperands(fields: readonly Field[]): void {
    unknownCommand(fields, new CommandCx(this.a, this.name, fields, this.depth));
  }
  exec(
    argv: readonly Field[],
    env?: 'other-user' | 'clean',
    vars?: readonly [string, string[] | null][],
  ): void {
    if (this.depth + 1 > this.a.maxDepth)
      this.a.uncertain(this.name, 'write', this.name, 'wrappers nested too deep');
    else {
      const run = () => this.a.withVars(vars ?? [], () => this.a.execWith(argv, this.depth + 1, env));
      // find -exec and xargs run their command while they walk or read: interleaved, not after.
      if (INTERLEAVED.has(this.name)) this.a.unorderedRun(run);
      else run();
    }
  }
  script(
    text: string,
    via: string,
    o?: { sameShell?: boolean; positional?: readonly Field[]; newProcess?: boolean; posix?: boolean },
  ): void {
    this.a.nestedScript(
      text,
      this.depth + 1,
      via,
      !o?.sameShell,
      o?.positional,
      o?.newProcess ?? !o?.sameShell,
      o?.posix,
    );
  }
  chdir(target: Field | null, cdpath = false): void {
    this.a.chdir(target, cdpath);
  }
  setVar(
    name: string,
    values: string[] | null | 'unset' | 'declared',
    o?: { local?: boolean; maybe?: boolean },
  ): void {
    this.a.setVar(name, values, o?.local, o?.maybe);
  }
  variable(name: string): string | null | undefined {
    return this.a.variable(name);
  }
  exportFunction(name: string): void {
    this.a.exportFunction(name);
  }
  dropFunction(name: string): void {
    this.a.dropFunction(name);
  }
  exists(f: Field): boolean {
    return this.a.exists(f);
  }
  resolveDir(f: Field): string | null {
    return this.a.resolveDir(f);
  }
  plannedLink(link: Field, target: Field | null): void {
    this.a.plannedLink(link, target);
  }
  taint(dir: Field): void {
    this.a.taint(dir);
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
    this.a.setGlobOptions(o);
  }
  readContent(f: Field, maxBytes?: number): { text: string; path: string } | { uncertain: string } {
    return this.a.readContent(f, maxBytes);
  }
  readBytes(f: Field, maxBytes: number): { bytes: Buffer; path: string } | { uncertain: string } {
    return this.a.readBytes(f, maxBytes);
  }
  stdinFile(): Field | undefined {
    return this.a.stdinFile();
  }
  stdinPaths(): PrintedPaths | undefined {
    return this.a.pipeInput();
  }
  defineAlias(name: string): void {
    this.a.aliases.add(name);
  }
  splitRoots(paths: PrintedPaths): string[] | { splits: string } | null {
    return this.a.splitRoots(paths);
  }
  takePipedPaths(roots: readonly string[]): void {
    this.a.takePipedPaths(roots);
  }
  printsPaths(paths: PrintedPaths): void {
    this.a.pipeOutput(paths);
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
