import type { Access, NetworkAccess } from '@toolgate/core';

export type UnknownCommands = 'write' | 'prompt' | 'deny';
export type Metacharacters = 'analyse' | 'deny';

export interface ExtractOptions {
  /** How path-like operands of commands not in the table are treated (default `write`). */
  unknownCommands?: UnknownCommands;
  /** How deep `bash -c`, `eval`, `$(…)` may nest before the rest is uncertain (default 8). */
  maxDepth?: number;
  /**
   * Time budget of the analysis in milliseconds (default 50): past it the call gets one uncertain access whose
   * reason starts with `SHELL_BUDGET`, never a hang.
   */
  budget?: number;
  /** Origin prefix for accesses, default `shell`. */
  originPrefix?: string;
  /**
   * `auto` (default): the fast path for simple commands, bash-parser otherwise; `full`: bash-parser always
   * (the differential test compares the two).
   */
  parse?: 'auto' | 'full';
  /**
   * Program identity (invariant 6): report the file each command word runs (found on `$PATH`, or named by
   * path) as an access marked `runs`, so that core asks the policy whether the agent could have written it.
   * The shell plugin turns this on; direct callers that only want the paths a command names leave it off.
   */
  programs?: boolean;
}

export interface Extraction {
  accesses: Access[];
  /** Whether any access is uncertain (the call will be denied or prompted). */
  uncertain: boolean;
  /** Metacharacter constructs present in the text (`$(`, backtick, `<(`, `<<<`, `eval`, `source`…). */
  metacharacters: string[];
  /** Commands that are not in the command table (their path-like operands were treated as writes). */
  unknownCommands: string[];
  /**
   * Hosts the command reaches on the network (curl's URLs and proxies, git remotes, registries, ssh hosts,
   * `/dev/tcp/HOST/PORT`): the plugin hands each to `state.reach`.
   */
  network: NetworkAccess[];
}

// Program models import their context from here (53 files under src/programs): it is defined, grouped by
// concern, in commandContext.ts. Kept so the family folders' imports did not move while they were being edited.
export type {
  CommandContext,
  CommandHandler,
  EmitOptions,
  PrintedPaths,
  Reach,
} from './commandContext.js';
