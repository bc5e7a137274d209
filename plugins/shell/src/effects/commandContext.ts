import type { NetworkAccess, Op, Scope, SubtreeFilter } from '@toolgate/core';
import type { Field } from '../state/expandWord.js';

// What a program model (`src/programs/**`) is handed: the command's name and operands, and the effects it may
// report. Grouped by concern; a model sees only this interface, never the analysis behind it.

export interface EmitOptions {
  scope?: Scope;
  /** `false` for operations on a link itself (rm, mv, ln -sf). */
  followFinal?: boolean;
  /** Suffix of the origin after `shell:<cmd>:`, default `argv`. */
  tag?: string;
  /** Subtree walks only: the program follows symlinks beneath the root (`grep -R`, `cp -rL`, `tar -h`). */
  followLinks?: boolean;
  /** Subtree walks only: entries the program skips (gitignored, untracked). */
  filter?: SubtreeFilter;
  /** The write only removes what it names (`rm`): it cannot bring new names into a subtree. */
  removes?: boolean;
  /**
   * Subtree writes only: the names it creates are not known at check time (an archive extracted, a clone):
   * the policy takes the worst case of every rule that could match beneath, not just what exists.
   */
  unknownNames?: string;
  /**
   * The file is trusted input of the program — its code or its configuration — rather than data: the
   * access is a marker (`Access.runs`) judged only by whether the agent could have written the file.
   * The phrase ends with a verb the path completes ("`vitest` runs", "curl reads its configuration from").
   */
  runs?: string;
}

/** Paths a command prints for the next command of a pipeline: every path beneath `roots`, as found. */
export interface PrintedPaths {
  roots: readonly Field[];
  /** Per root, the entries the printed paths cannot be (find's tests). */
  filters: readonly (SubtreeFilter | undefined)[];
  /** NUL-terminated (`-print0`) rather than one a line. */
  nul: boolean;
  /**
   * Every name that can be printed is known to print as one line (the printer checked them: git's index),
   * so a taker that splits at blanks need not walk the tree to check.
   */
  checked?: boolean;
}

/** The accesses a command makes. */
export interface AccessEffects {
  read(f: Field, options?: EmitOptions): void;
  write(f: Field, options?: EmitOptions): void;
  emit(f: Field, op: Op, options?: EmitOptions): void;
  /** An access that cannot be known: denies (or prompts) the call. */
  uncertain(reason: string, op?: Op, raw?: string): void;
  /** Treat these operands the way unknown commands' operands are treated. */
  unknownOperands(fields: readonly Field[]): void;
}

/** What the filesystem and the shell say about the command's words, here and now. */
export interface WordValues {
  /** A variable's value here: `undefined` when unset, `null` when it is not known for certain. */
  variable(name: string): string | null | undefined;
  /** The real directory a field names, against the current cwd; `null` when not known for certain. */
  resolveDir(f: Field): string | null;
  /** Whether an operand names an existing file relative to the cwd (for unknown commands). */
  exists(f: Field): boolean;
}

/** Files the command consumes, read for content-aware analysis (`source F`, `npm run X`'s package.json). */
export interface ContentReading {
  /**
   * Reads a file the command consumes (`sha256sum -c F`). Returns `{ uncertain }` — and the caller must then
   * be uncertain — when the path is not known for certain, is not a regular file, is larger than `maxBytes`
   * (default 256 KiB), cannot be read, or may be written by this same command line before it is read. Call
   * `read(f)` as well: reading it is an access.
   */
  /** `skip`: as for `writtenEarlier`, earlier writes not counted. */
  readContent(
    f: Field,
    maxBytes?: number,
    skip?: readonly string[],
  ): { text: string; path: string } | { uncertain: string };
  /**
   * Whether an earlier command of this line may write the file — git's writes into its own git dir
   * included, which `readContent` leaves to git's model (`git remote set-url … && git push` connects where
   * the rewritten config says). `skip`: writes whose origin ends with one of these are not counted (git's
   * model tells its own kinds of writes apart: `git:git-dir`, `git:git-tracking`).
   */
  writtenEarlier(f: Field, skip?: readonly string[]): boolean;
  /** `readContent` for a binary file (an archive's member list): its bytes, or why they cannot be known. */
  readBytes(f: Field, maxBytes: number): { bytes: Buffer; path: string } | { uncertain: string };
}

/** Code the command runs: another command's argv, or a script. */
export interface NestedCode {
  /** Runs a command given as argv (wrappers, `xargs`, `find -exec`). */
  exec(
    argv: readonly Field[],
    env?: 'other-user' | 'clean',
    /** Variables in the command's environment only (`env X=v cmd`): restored afterwards. */
    vars?: readonly [string, string[] | null][],
  ): void;
  /**
   * Analyses a nested script (`bash -c`, `eval`, `trap`, `watch`). `sameShell`: it runs in this shell
   * (`eval`), so its `cd` and assignments carry on; `positional`: `$0`, `$1`… inside it.
   */
  script(
    text: string,
    via: string,
    options?: {
      sameShell?: boolean;
      positional?: readonly Field[];
      /** Runs in another shell process, which sees only exported functions (default: `!sameShell`). */
      newProcess?: boolean;
      /** The shell may be a POSIX sh (dash): constructs bash reads otherwise are analysed both ways. */
      posix?: boolean;
    },
  ): void;
}

/** What the shell's builtins change for the commands after them. */
export interface ShellEffects {
  /**
   * Changes the cwd of what follows (`cd`, `pushd`); `null` makes it unknown. `cdpath`: a relative name
   * is searched in `$CDPATH`; `physical`: `cd -P` (`..` is the kernel's, `$PWD` the real path), `false`
   * `cd -L`, `undefined` the shell's default (logical, or physical after `set -P`).
   */
  chdir(target: Field | null, cdpath?: boolean, physical?: boolean): void;
  /** `export NAME`, `declare -x` (`true`), `export -n`, `declare +x` (`false`): whether children see NAME. */
  setExported(name: string, on: boolean): void;
  /**
   * A shell option that changes how later commands behave: `set -P` (`physical`), `set -a`
   * (`allexport`), `set -o posix` (`posix`). Seen anywhere, it may be on for everything after it.
   */
  shellOption(name: 'physical' | 'allexport' | 'posix'): void;
  /**
   * Sets a variable (`export`, `read`, `declare`); `null` means the value is unknown, `'unset'` removes it,
   * `'declared'` is a bare `declare X` (unset local inside a function, no change elsewhere);
   * `local`: until the current function returns (`local`, `declare` inside a function); `maybe`: the
   * assignment may not happen at all (a bash-only builtin that a POSIX sh does not have), so the old value
   * stays possible beside the new one.
   */
  setVar(
    name: string,
    values: string[] | null | 'unset' | 'declared',
    options?: { local?: boolean; maybe?: boolean },
  ): void;
  /** `export -f NAME`: child shells see the function. */
  exportFunction(name: string): void;
  /** `unset -f NAME`: NAME is no longer a function. */
  dropFunction(name: string): void;
  /** `alias NAME=…`: a command named NAME read after this line may run the alias's text instead. */
  defineAlias(name: string): void;
  /** `shopt -s dotglob` / `nocaseglob` (or an unknown shopt): later globs match dotfiles / ignore case. */
  globOptions(o: { dot?: boolean; nocase?: boolean }): void;
}

/** Changes the command makes that later commands of the same line go through. */
export interface LineChanges {
  /** `ln` creates `link` pointing at `target` (resolved like the link's target): later paths through it follow it. */
  plannedLink(link: Field, target: Field | null): void;
  /** The command fills `dir` with files and links it does not control (`tar -x`, `unzip`, `git clone`). */
  taint(dir: Field): void;
}

/** Paths that flow through the command's stdin and stdout. */
export interface PipedPaths {
  /** A field standing for every path under `roots` (find's `{}`): accesses become subtrees of the roots. */
  under(roots: readonly Field[], raw: string, filters?: readonly (SubtreeFilter | undefined)[]): Field;
  /** A field whose value comes from stdin (xargs): any access on it is uncertain. */
  fromStdin(raw: string): Field;
  /** The file this command's stdin is redirected from (`< fix.diff`), when its name is plain. */
  stdinFile(): Field | undefined;
  /**
   * The paths this command's stdin carries, when it is a pipe from a command that prints only paths of a
   * known set (`find src -name '*.ts' | xargs wc -l`); `undefined` when stdin is anything else.
   */
  stdinPaths(): PrintedPaths | undefined;
  /**
   * Whether printed paths arrive one an item when split at blanks (xargs without `-0`): the roots' real
   * directories, the reason a name there splits, or `null` when it cannot be told.
   */
  splitRoots(paths: PrintedPaths): string[] | { splits: string } | null;
  /**
   * The command takes paths beneath these real directories from its pipe, split at blanks (xargs without
   * `-0`): the line must not create a name there that would split differently (checked after the line).
   */
  takePipedPaths(roots: readonly string[]): void;
  /** This command prints only paths of this set, one a line (or NUL-terminated), on stdout. */
  printsPaths(paths: PrintedPaths): void;
}

/**
 * One host a command reaches, as a network model reports it: `origin` is what follows `shell:` (default the
 * command's name, `git:.git/config` for a remote read from a repository's config).
 */
export type Reach = Omit<NetworkAccess, 'origin'> & { origin?: string };

/** The hosts a command reaches on the network (issue 26): judged by a policy's `network` section. */
export interface NetworkEffects {
  reach(r: Reach): void;
}

/** What a command handler can do: emit accesses for fields, change the cwd, run nested commands. */
export interface CommandContext
  extends AccessEffects,
    NetworkEffects,
    WordValues,
    ContentReading,
    NestedCode,
    ShellEffects,
    LineChanges,
    PipedPaths {
  /** Name as looked up in the table (basename, without a leading backslash). */
  readonly name: string;
  readonly args: readonly Field[];
  /**
   * `compute()` once for this run of the command (never across commands or calls): its network model and
   * its path model share what they read (curl's config files, ssh's, wget's), whose accesses the first
   * emits.
   */
  once<T>(key: string, compute: () => T): T;
}

export type CommandHandler = (cx: CommandContext) => void;
