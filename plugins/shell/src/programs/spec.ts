import type { CommandContext, CommandHandler, EmitOptions } from '../effects/extractTypes.js';
import type { Field } from '../state/expandWord.js';
import { type ArgSpec, has, type ParsedArgs, parseArgs } from './argv.js';

/** What a command does to a path: `delete` acts on a link itself (rm, unlink), not its target. */
export type Role = 'read' | 'write' | 'delete' | 'none';

export interface SimpleSpec extends ArgSpec {
  /** What every operand is (default `read`). */
  operands?: Role;
  /** Leading operands that are not paths (chmod's mode, grep's pattern). */
  skip?: number;
  /** Options that supply the skipped operand instead (grep `-e`), so nothing is skipped when present. */
  skipUnless?: readonly string[];
  /** Options that make operands recursive: judged as subtrees. */
  recursive?: readonly string[];
  /** Operands are always subtrees (du, tree, rg). */
  subtree?: boolean;
  /** Option → role of its argument: `{ '-o': 'write', '--output': 'write' }`. */
  pathOpts?: Readonly<Record<string, Role>>;
  /** With no operands the command works on this path (`ls` → `.`). */
  defaultOperand?: string;
  /** …but only when recursive (`grep -r x` searches `.`, `grep x` reads stdin). */
  defaultOnlyRecursive?: boolean;
  /** Options that make a recursive walk follow every symlink beneath the operands (`grep -R`, `du -L`). */
  followsLinks?: readonly string[];
  /** Options that turn operands into writes (`sed -i`, `sort -o` is a pathOpt instead). */
  writeWith?: readonly string[];
}

export function literal(value: string): Field {
  return { value, raw: value, glob: -1, tilde: false };
}

export function emitRole(cx: CommandContext, f: Field, role: Role, o: EmitOptions = {}): void {
  if (role === 'none') return;
  if (role === 'read') cx.read(f, o);
  else if (role === 'write') cx.write(f, o);
  else cx.write(f, { ...o, followFinal: false });
}

/** Emits accesses for option arguments that are paths, and for unknown `--x=/path` options. */
export function emitOptions(cx: CommandContext, p: ParsedArgs, pathOpts: SimpleSpec['pathOpts']): void {
  for (const o of p.opts) {
    const role = pathOpts?.[o.name];
    if (role && o.value) emitRole(cx, o.value, role, { tag: o.name.replace(/^-+/, '') });
    // `--files-from=LIST`, `--files0-from=LIST`: the command reads files named inside LIST.
    if (/^--files0?-from$/.test(o.name)) cx.uncertain(`${o.name} names files we cannot see`, 'read');
  }
  if (p.strays.length > 0) cx.unknownOperands(p.strays);
  unknownOptions(cx, p);
}

/**
 * Options a complete table does not know: they may name files or run code, so the call is uncertain
 * (issue 13: "an option the table does not know, on a program it does know, is uncertain — never skipped").
 */
export function unknownOptions(cx: CommandContext, p: ParsedArgs): void {
  for (const o of p.unknown) cx.uncertain(`${cx.name}: option ${o} is not in its table`, 'write', o);
}

/** A command described by data: which options take arguments, which are paths, what operands are. */
export function simple(spec: SimpleSpec): CommandHandler {
  return (cx) => {
    const p = parseArgs(cx.args, spec);
    emitOptions(cx, p, spec.pathOpts);
    const skip = spec.skipUnless && has(p, ...spec.skipUnless) ? 0 : (spec.skip ?? 0);
    let operands = p.operands.slice(skip);
    const recursive = spec.subtree || (spec.recursive !== undefined && has(p, ...spec.recursive));
    if (
      operands.length === 0 &&
      spec.defaultOperand !== undefined &&
      (recursive || !spec.defaultOnlyRecursive)
    ) {
      operands = [literal(spec.defaultOperand)];
    }
    let role = spec.operands ?? 'read';
    if (spec.writeWith && has(p, ...spec.writeWith)) role = 'write';
    for (const f of operands) emitRole(cx, f, role, recursive ? { scope: 'subtree' } : {});
    if (recursive && spec.followsLinks && has(p, ...spec.followsLinks)) followsLinks(cx, role);
  };
}

/** A recursive walk that follows symlinks beneath its roots reaches places no one can list in advance. */
export function followsLinks(cx: CommandContext, role: Role): void {
  cx.uncertain(`${cx.name} follows every symlink beneath its operands`, role === 'read' ? 'read' : 'write');
}

/** Handler for commands that touch no paths at all (echo, true, sleep…). */
export const noPaths: CommandHandler = () => {};
