import type { Access, NetMethod, NetworkPolicy, Op } from '@toolgate/core';

/** What a rule grants or forbids. Ordered most restrictive first: `deny > prompt > read > write`. */
export type RuleAccess = 'deny' | 'prompt' | 'read' | 'write';
/** What one operation gets when no rule matches. */
export type Outcome = 'allow' | 'deny' | 'prompt';
export type CombiningMode = 'tiered' | 'first-match';
/** Which accesses a rule or default applies to: shell-extracted ones, file/MCP-tool ones, or both. */
export type Vector = 'shell' | 'file';

/** One rule of the canonical model. */
export interface PolicyRule {
  pattern: string;
  access: RuleAccess;
  description?: string;
  /** `dialect:file#field[index]`, for explain, audit and lint. */
  source: string;
  /** A `!pattern` block (first-match): applies wherever it stands and covers the subtree. */
  block?: boolean;
  /** Only for accesses of this vector (Hermes `tools.terminal.*` vs `tools.file.*`). */
  vector?: Vector;
  /** Only for accesses of these operations (Hermes: `allowed_read_paths` grants reads, says nothing of writes). */
  ops?: readonly Op[];
}

/** The outcome per operation for paths no rule matches. */
export interface DefaultSpec {
  read: Outcome;
  write: Outcome;
}

/** One declared URL argument: a selector (`url`, `requests[].url`) and what the call does there (default: read, or write when its arguments carry a body or a non-GET method). */
export type UrlDeclaration = string | { arg: string; method?: 'read' | 'write' };

/** One declared path argument: a selector (`path`, `paths[]`, `ops[].path`, `edits[].target.file`) and its op. */
export type PathDeclaration = string | { arg: string; op?: Op };

export interface ToolSpec {
  /**
   * The operation of the tool's path arguments (`copy`: source read, destination write; `move`: both ends
   * written). `opaque`: the tool runs code whose paths nobody can extract (Hermes `code_execution`): never
   * allowed by default. `patch`: the tool applies a patch (Codex `apply_patch`): every file it names is written.
   */
  op: Op | 'copy' | 'move' | 'shell' | 'opaque' | 'none' | 'patch';
  /** Top-level argument names that carry paths (all of them are checked). */
  pathArgs?: string[];
  /**
   * Where the paths are at any depth (`ops[].path`: the `path` of every element of `ops`), each with the
   * tool's op or its own. Arguments found by their names besides these are checked too.
   */
  paths?: PathDeclaration[];
  /** Arguments that hold URLs the tool connects to (WebFetch `url`): each a network reach the policy's `network` judges. */
  urls?: UrlDeclaration[];
  /** Arguments whose text carries the URLs the tool fetches (Gemini CLI `web_fetch {prompt}`): every `http(s)://` URL in it is a reach. */
  urlText?: string[];
  /** The tool reads or writes a whole subtree (`search_files`, `directory_tree`). */
  subtree?: boolean;
  /** Directories the tool writes into whatever its arguments say (`tool_image_generate`: its upload cache). */
  writes?: string[];
  /**
   * The operation depends on an argument (Anthropic's text editor: `command: view` reads, `create`/
   * `str_replace`/`insert`/`undo_edit` write). `op` is what any other value (or none) gets.
   */
  opByArg?: { arg: string; ops: Readonly<Record<string, Op>> };
}

export interface ShellSettings {
  /** Absent: the shell plugin's default (`analyse`), or the base policy's under an overlay. */
  metacharacters?: 'deny' | 'analyse';
  allowedPaths?: string[];
  deniedPaths?: string[];
  /** More shell tools for @toolgate/shell (`{name: {commandArg, form?, cwdArg?, …} | false}`), validated at load. */
  tools?: Readonly<Record<string, ShellToolEntry | false>>;
  /** Tools whose command-like argument is not a shell command here: neither analysed as shell nor denied as one. */
  notShell?: readonly string[];
}

/** One shell tool as a policy declares it (the shape of @toolgate/shell's `ShellToolSpec`). */
export interface ShellToolEntry {
  commandArg: string;
  form?: 'script' | 'argv' | 'either';
  cwdArg?: string | string[];
  envArg?: string;
  shellArg?: string;
  loginArg?: string;
  defaultShell?: string;
  defaultLogin?: boolean;
  base?: string;
  kind?: 'command' | 'input' | 'code' | 'patch';
  inputFlagArg?: string;
  applyPatch?: boolean;
  userArg?: string;
}

/**
 * Whole-tool gates a dialect sets beside its path rules (they judge calls, not paths):
 * Hermes `tools.<t>.enabled: false`, OpenFang's tool-level `requires_approval`, Hermes code_execution scoping.
 */
export interface ToolGates {
  /** Every call of a tool of this vector is denied (`shell`: shell tools; `file`: file and MCP file tools). */
  disabledVectors?: readonly Vector[];
  /** Every call of these tools is denied (Hermes `tools.code_execution.enabled: false`). */
  disabledTools?: readonly string[];
  /** Every call of these tools needs approval (`true`: every tool): one request with the call's path prompts. */
  approvalTools?: readonly string[] | true;
  /**
   * Code-running tools whose string literals are judged as shell-vector paths instead of refusing the tool
   * outright (Hermes `code_execution` under `tools.terminal` scoping). `dynamic: 'allow'` is the seed's
   * `allow_metacharacters` opt-out: code that builds paths at run time is then not refused.
   */
  codeTools?: Readonly<Record<string, { arg: string; dynamic: 'deny' | 'allow' }>>;
  /** `false`: tool descriptions are left as the server wrote them (Hermes: "No changes to tool schemas"). */
  describe?: boolean;
}

/** A test carried by a policy: the policy ships with its own proof. */
export interface PolicyTest {
  call?: { tool: string; args: Record<string, unknown> };
  path?: string;
  op?: Op;
  /** A network test: the host or URL reached (judged by the policy's `network`), and how (default read). */
  host?: string;
  method?: NetMethod;
  expect: Outcome;
  source: string;
}

/** A policy in the canonical model, ready to be bound to a context and evaluated. */
export interface CompiledPolicy {
  readonly dialect: string;
  /** sha256 of the normalised policy (stable across key order and whitespace of the source). */
  readonly hash: string;
  readonly mode: CombiningMode;
  readonly rules: readonly PolicyRule[];
  /** Default outcome per operation. */
  readonly default: DefaultSpec;
  /** Per-vector defaults overriding `default` (Hermes: terminal and file lists are independent). */
  readonly defaults?: Partial<Record<Vector, DefaultSpec>>;
  /** Files (and overlays) the policy was loaded from, in layering order. */
  readonly sources: readonly string[];
  readonly shell?: ShellSettings;
  readonly unknownTools: Outcome;
  readonly tools: Readonly<Record<string, ToolSpec>>;
  /** Reject any raw path containing a `..` component (Folder Guard). */
  readonly rejectTraversal: boolean;
  /** Relative raw paths of file tools resolve against the workspace instead of the cwd (Folder Guard). */
  readonly relativeTo: 'cwd' | 'workspace';
  /** The guard is off (Folder Guard with both lists empty; wolo wild mode). */
  readonly disabled: boolean;
  /** Hide write tools from the model when nothing is writable (Folder Guard). */
  readonly hideWriteTools: boolean;
  readonly tests: readonly PolicyTest[];
  /** Whole-tool gates (Hermes `enabled`, OpenFang `requires_approval`); absent: none. */
  readonly gates?: ToolGates;
  /** Per-agent policies carried in the file (each the global one layered with the agent's overlay), chosen per call by `ctx.agentId`. */
  readonly agents?: Readonly<Record<string, CompiledPolicy>>;
  /**
   * The `network` section compiled (core's matcher, shared with the sandbox's proxy). Absent: the policy
   * does not restrict the network (every seed dialect; a native policy without `network`).
   */
  readonly network?: NetworkPolicy;
  /** Dialect settings other plugins use (wolo `max_confirmations_per_session`, `audit_denied`, wild mode). */
  readonly extras: Readonly<Record<string, unknown>>;
}

/** One rule considered while judging one access (explain). */
export interface TraceEntry {
  rule: PolicyRule;
  matched: boolean;
  /** `path`: the rule matched the path itself; `beneath`: it could match something under a subtree access. */
  how?: 'path' | 'lexical' | 'beneath';
  note?: string;
}

export interface Evaluation {
  decision: Outcome;
  /** The rule that decided, absent when the default did. */
  rule?: PolicyRule;
  /** Every rule that matched (for `state.match`). */
  matched: PolicyRule[];
  /** Filled only when tracing. */
  trace: TraceEntry[];
  /** Why, in words (filled only when tracing: building it costs more than the decision). */
  why: string;
  /**
   * Subtree accesses: the existing entry beneath the root that decided (`grep -r KEY .` ⇒ `/ws/.env`), its
   * real path and, when it differs, the path as written.
   */
  cause?: { path: string; lexical?: string };
  /** Subtree accesses judged by the worst case because the walk could not answer: why (bound, unknown contents). */
  unbounded?: string;
  /** Subtree accesses: directory entries the walk read. */
  walked?: number;
}

export type { Access };
