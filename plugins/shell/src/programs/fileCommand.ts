import type { Op, SubtreeFilter } from '@toolgate/core';
import type { CommandContext, CommandHandler, EmitOptions } from '../effects/extractTypes.js';
import type { Field } from '../state/expandWord.js';
import { type ArgSpec, has, type ParsedArgs, parseArgs } from './argv.js';
import { emitOptions, literal, type Role } from './spec.js';

/** What a file program does to its operands: the roles of `spec.ts`, plus `list` (names and metadata). */
export type FileRole = Role | 'list';

/** A file program described by data: its complete option table and what its operands are. */
export interface FileSpec extends ArgSpec {
  /** What every operand is (default `read`). */
  operands?: FileRole;
  /** Leading operands that are not paths (grep's pattern, chmod's mode). */
  skip?: number;
  /** Options that supply the skipped operand instead (grep `-e`), so nothing is skipped when present. */
  skipUnless?: readonly string[];
  /** Options that make operands recursive (subtrees). */
  recursive?: readonly string[];
  /** Operands are always subtrees (du). */
  subtree?: boolean;
  /** Option → role of its argument. */
  pathOpts?: Readonly<Record<string, FileRole>>;
  /** With no operands the program works on this path (`ls` → `.`)… */
  defaultOperand?: string;
  /** …but only when recursive (`grep -r x` searches `.`, `grep x` reads stdin). */
  defaultOnlyRecursive?: boolean;
  /** Options with which a recursive walk follows every symlink beneath its roots (`grep -R`, `du -L`). */
  followWith?: readonly string[];
  /**
   * Whether a symlink named as an operand is followed (default yes). `false`: the program acts on the link
   * itself (`stat`, `readlink`) unless one of `followFinalWith` is given (`stat -L`).
   */
  followFinal?: boolean;
  followFinalWith?: readonly string[];
  /** Options that turn operand reads into writes. */
  writeWith?: readonly string[];
  /** Entries a recursive walk skips, from the options (`grep -r --include=*.py`). */
  filterFrom?: (opts: ParsedArgs['opts'], cx: CommandContext, operand: Field) => SubtreeFilter | undefined;
}

/** Emits one field in a role (`delete` is a write on the link itself). */
export function emitFile(cx: CommandContext, f: Field, role: FileRole, o: EmitOptions = {}): void {
  if (role === 'none') return;
  if (role === 'delete') cx.write(f, { ...o, followFinal: false, removes: true });
  else cx.emit(f, role satisfies Op, o);
}

/**
 * A handler from a `FileSpec`: option arguments that are paths, operands in their role, recursive walks as
 * subtrees that follow symlinks exactly where the program does. Options the table does not know are
 * uncertain (the table is complete: `shortFlags` is always given in the option files).
 */
export function fileCommand(spec: FileSpec): CommandHandler {
  return (cx) => {
    const p = parseArgs(cx.args, spec);
    const roles: Record<string, Role> = {};
    for (const [k, v] of Object.entries(spec.pathOpts ?? {})) if (v !== 'list') roles[k] = v;
    emitOptions(cx, p, roles);
    for (const o of p.opts) {
      if (o.value && spec.pathOpts?.[o.name] === 'list')
        cx.emit(o.value, 'list', { tag: o.name.replace(/^-+/, '') });
    }
    const skip = spec.skipUnless && has(p, ...spec.skipUnless) ? 0 : (spec.skip ?? 0);
    let operands = p.operands.slice(skip);
    const recursive = spec.subtree === true || (spec.recursive !== undefined && has(p, ...spec.recursive));
    if (
      operands.length === 0 &&
      spec.defaultOperand !== undefined &&
      (recursive || !spec.defaultOnlyRecursive)
    ) {
      operands = [literal(spec.defaultOperand)];
    }
    const role: FileRole = spec.writeWith && has(p, ...spec.writeWith) ? 'write' : (spec.operands ?? 'read');
    const followLinks = recursive && spec.followWith !== undefined && has(p, ...spec.followWith);
    const followFinal =
      spec.followFinal !== false || (spec.followFinalWith !== undefined && has(p, ...spec.followFinalWith));
    for (const f of operands) {
      const filter = recursive ? spec.filterFrom?.(p.opts, cx, f) : undefined;
      emitFile(
        cx,
        f,
        role,
        recursive
          ? {
              scope: 'subtree',
              ...(followLinks ? { followLinks: true } : {}),
              ...(followFinal ? {} : { followFinal }),
              ...(filter ? { filter } : {}),
            }
          : followFinal
            ? {}
            : { followFinal },
      );
    }
  };
}

/** The same command seen with other arguments (a handler that removed words it has dealt with itself). */
export function withArgs(cx: CommandContext, args: readonly Field[]): CommandContext {
  return Object.create(cx, { args: { value: args } }) as CommandContext;
}
