import type { NetworkAccess } from './network/types.js';

/** What the agent asked a tool to do. `args` is whatever the model produced; toolgate never trusts its shape. */
export interface ToolCall {
  tool: string;
  args: Record<string, unknown>;
}

/**
 * Who is calling, and from where. Every path in a call is resolved against this context — never the
 * process's own cwd or HOME — so one guard can serve many agents at once.
 */
export interface CallContext {
  sessionId: string;
  agentId: string;
  /** Absolute directory relative paths of this call are resolved against. */
  cwd: string;
  /** Absolute workspace root, substituted for `<workspace>`. */
  workspace: string;
  /** Absolute home directory, substituted for `~`. */
  home: string;
  /** Variables `$VAR` and `${VAR}` expand from; an unset variable makes a path uncertain. */
  env: Readonly<Record<string, string | undefined>>;
  /** The human the agent acts for, when the host knows (audit and notifications report it). */
  userId?: string;
}

/**
 * `list` reads names and metadata only (`ls`, `stat`, `find` without actions that open files, MCP
 * `list_directory`): policies judge it as a read of the directory itself, never of the files in it.
 */
export type Op = 'read' | 'write' | 'list';
/** `subtree`: the access may touch anything beneath `path` (`rm -r`, `grep -r`, a glob like `/etc/*`). */
export type Scope = 'path' | 'subtree';

/** One symlink followed while resolving a path. */
export interface SymlinkHop {
  link: string;
  target: string;
}

/** The result of resolving one raw path with the kernel's semantics. */
export interface ResolvedPath {
  raw: string;
  /** After `~`, `<workspace>` and `$VAR` expansion, before any normalisation. */
  expanded: string;
  /** Absolute and lexically normalised (`.`/`..` collapsed textually): what a naive checker would see. */
  lexical: string;
  /** The path the operation really touches, symlinks followed; `null` when it cannot be known. */
  real: string | null;
  certain: boolean;
  /** Why the path is uncertain (unset variable, unknown user, link loop, unreadable directory…). */
  reason?: string;
  hops: SymlinkHop[];
  /** Whether `real` exists right now. */
  exists: boolean;
}

/** One path a tool call touches. Produced by extractors on `collectAccesses`. */
export interface Access {
  op: Op;
  scope: Scope;
  /** The path as the model wrote it. */
  raw: string;
  /** Absolute, lexically normalised form (explain and audit show it beside the real one). */
  path: string;
  /** Where the operation really lands; `null` when uncertain. Policies judge this. */
  realPath: string | null;
  /** Which extractor and which argument or token produced it, e.g. `folder-rules:args.path`, `shell:redirect`. */
  origin: string;
  /** `false` when the path could not be determined with certainty: such an access is never allowed. */
  certain: boolean;
  reason?: string;
  /** Symlinks followed to get from `path` to `realPath`. */
  hops?: SymlinkHop[];
  /** The operation acts on a symlink itself (delete, rename, `ln -sf`): the link is not followed. */
  onLink?: boolean;
  /**
   * Subtree accesses only: the program follows symlinks it meets beneath the root (`grep -R`, `cp -rL`,
   * `tar -h`, `find -L`). Without it a walk judges a link beneath the root as the link, not its target.
   */
  followLinks?: boolean;
  /**
   * Subtree accesses only: why what lies beneath cannot be known at check time (the same command line may
   * write into it first: `cp -r other/ ws/ && tar czf x ws`). Policies then take the worst case.
   */
  unknownContents?: string;
  /**
   * Subtree accesses only: entries beneath the root the program skips (`git add -A` skips ignored files,
   * `git grep` reads tracked files only). A policy's walk does not judge what it skips.
   */
  filter?: SubtreeFilter;
  /**
   * A read of a file whose code runs as the program (a command word resolved through `$PATH`, `./a.out`, a
   * package's bin): when the agent may write that file, what runs is the agent's own code, and the call is
   * uncertain whatever the program's model says (invariant 6, prove or sandbox). The same holds for a file
   * a program takes as trusted input (its configuration: `~/.curlrc`, a Makefile's includes). `runs` says who
   * trusts it, ending with a verb the path completes: "`vitest` runs", "curl reads its configuration from".
   */
  runs?: string;
}

/**
 * Which entries beneath a subtree access the program really touches. `skips` gets the path relative to the
 * access's root (`src/a.ts`, no leading `./`) and whether it is a directory; it must be pure and cheap (it
 * runs inside the policy's walk). `name` says what it is for explain and audit (`gitignore of /ws`).
 */
export interface SubtreeFilter {
  readonly name: string;
  skips(relPath: string, isDir: boolean): boolean;
}

/** A rule of some policy that matched an access; data for explain and audit. */
export interface MatchedRule {
  plugin: string;
  pattern: string;
  access: string;
  description?: string;
  /** Where the rule came from: dialect, file and index, e.g. `openfang:/etc/toolgate.toml#deny_paths[2]`. */
  source?: string;
}

export type FindingAction = 'deny' | 'prompt';

/** A plugin's objection to a call. Verdicts are data, never exceptions. */
export interface Finding {
  action: FindingAction;
  /** A code from the registry in `codes.ts` (for example `PATH_DENIED`). */
  code: string;
  /** Short, model-readable reason: "path outside allowed scope". */
  reason: string;
  /** Set by core from the tap that produced the finding. */
  plugin?: string;
  access?: Access;
  /** The network reach the finding is about (codes `NETWORK_*`). */
  network?: NetworkAccess;
  rule?: MatchedRule;
  /** What the model could do instead. */
  hint?: string;
  /** Roots the policy would allow for this operation (shown only with `disclosure: 'full'`). */
  allowedPaths?: string[];
  /** How many more allowed roots there are than `allowedPaths` lists (a policy of thousands is capped). */
  allowedPathsOmitted?: number;
  /** Host patterns the policy allows for this method (network findings, `disclosure: 'full'`). */
  allowedHosts?: string[];
}

export type DenyFinding = Finding & { action: 'deny' };
export type PromptFinding = Finding & { action: 'prompt' };

/** What the model sees when a call is rejected (ARCHITECTURE.md, "Rejection envelope"). */
export interface RejectionEnvelope {
  error: string;
  code: string;
  tool_name: string;
  path?: string;
  operation?: Op;
  allowed_paths?: string[];
  /** Allowed roots not listed in `allowed_paths` (the list is capped so the envelope stays small). */
  allowed_paths_omitted?: number;
  /** Network denials: the host the call would reach, the rule that decided, the hosts the policy allows. */
  host?: string;
  rule?: string;
  allowed_hosts?: string[];
  /** Allowed host patterns not listed in `allowed_hosts` (capped like `allowed_paths`). */
  allowed_hosts_omitted?: number;
  hint: string;
  decision_id: string;
  /** The call was not denied but rewritten to run inside the OS sandbox (code `SANDBOXED`). */
  sandboxed?: boolean;
}

export type Verdict = 'allow' | 'deny' | 'prompt';

/** How a prompt was settled, when there was one. */
export interface ApprovalOutcome {
  approved: boolean;
  by: string;
  reason?: string;
  /** Whatever the approver granted (scope, expiry…), recorded for audit. */
  grant?: unknown;
}

export interface Decision {
  id: string;
  /** Final answer: `prompt` only when the caller asked not to resolve prompts (`check(…, {resolvePrompts: false})`). */
  action: Verdict;
  /** The folded verdict before any approval. */
  verdict: Verdict;
  tool: string;
  sessionId: string;
  agentId: string;
  /** Every finding, deny first: what the model and the audit are told. */
  reasons: Finding[];
  accesses: Access[];
  /** Hosts the call reaches (present when an extractor found any). */
  network?: readonly NetworkAccess[];
  matched: MatchedRule[];
  /** Present when `action` is `deny`. */
  envelope?: RejectionEnvelope;
  /**
   * Present when an allowed call's arguments were normalised by a plugin (Folder Guard: path arguments as
   * the absolute paths that were checked): the host runs the tool with these instead of `call.args`.
   */
  args?: Record<string, unknown>;
  approval?: ApprovalOutcome;
  /**
   * Present when the call runs inside the OS sandbox instead (policy `sandbox: uncertain | always`): the host
   * runs `sandboxed.args` (or `argv`) in place of the call's own arguments. `action` is then `allow` (or
   * `prompt`, for the host to ask about the rewritten call), and `envelope` says so with code `SANDBOXED`.
   */
  sandboxed?: SandboxedRun;
  /** Epoch milliseconds at which the decision was made. */
  time: number;
}

/** A shell call rewritten to run inside the OS sandbox (issue 16). */
export interface SandboxedRun {
  /** The program to run instead: the sandbox, its arguments, then the original command. */
  argv: readonly string[];
  /** `argv` quoted for a POSIX shell: what replaces a script-form command (a hook's `updatedInput`). */
  command: string;
  /** The call's arguments with the command replaced: what the host runs. */
  args: Record<string, unknown>;
  /** What analysis could not prove (empty when the policy sandboxes every shell call). */
  uncertain: readonly Finding[];
  mode: 'uncertain' | 'always';
  /** The policy's limits on the run, in words (`processes 256, memory 2GiB, wallTime 10m`), when it sets any. */
  limits?: string;
}

/** What a sandbox gives core: a rewrite of one call, or why it cannot run one (then the call is denied). */
export type SandboxRewrite =
  | Pick<SandboxedRun, 'argv' | 'command' | 'args' | 'limits'>
  | { unavailable: string };

/**
 * An OS sandbox compiled from the same policy (`@toolgate/sandbox`). Core asks it to rewrite a shell call
 * that nothing denies statically but analysis could not prove (`uncertain`), or every such call (`always`).
 */
export interface Sandboxer {
  readonly mode: 'off' | 'uncertain' | 'always';
  /** `approved`: prompt-tier accesses a human approved before the run (visible inside the sandbox). */
  rewrite(call: ToolCall, ctx: CallContext, approved: readonly Access[]): SandboxRewrite;
}

/** One approval request for every prompt finding of a call (seed 004: one approval per call). */
export interface PromptRequest {
  id: string;
  call: ToolCall;
  ctx: CallContext;
  findings: PromptFinding[];
  accesses: Access[];
  /**
   * Aborted once the prompt is settled by anyone (another approver, a timeout, core's own bound): a strategy
   * still asking should withdraw its question.
   */
  signal: AbortSignal;
}

export interface PromptAnswer {
  approved: boolean;
  reason?: string;
  /** Who answered: `tty`, `queue`, `grant`, `wild-mode`… (the plugin name is used when absent). */
  by?: string;
  grant?: unknown;
  /** A denial that should carry its own code, e.g. `PROMPT_TIMEOUT`. */
  code?: string;
}

/** A denied call, as observers see it. */
export interface Violation {
  decision: Decision;
  call: ToolCall;
  ctx: CallContext;
  /** The deny that decided it. */
  finding: Finding;
}

/** A tool as a host describes it (MCP `tools/list` shape). */
export interface ToolDescriptor {
  name: string;
  description?: string;
  inputSchema?: unknown;
  annotations?: {
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

export interface DescribeContext {
  sessionId?: string;
  agentId?: string;
  workspace?: string;
  home?: string;
  cwd?: string;
  env?: Readonly<Record<string, string | undefined>>;
}
