import type { MatchedRule, Op, PromptRequest, Scope } from '@toolgate/core';
import type { Observable } from 'rxjs';

/** One prompt-tier access of a call, as an approver is shown it: what the model typed and where it lands. */
export interface ApprovalItem {
  op: Op;
  scope: Scope;
  /** The path as the model wrote it. */
  raw: string;
  /** Where the operation really lands (symlinks followed); `null` when it could not be determined. */
  realPath: string | null;
  /** The finding's code and reason (`PATH_PROMPT`, "needs approval"…). */
  code: string;
  reason: string;
  rule?: MatchedRule;
}

/** One question to a human: every prompt-tier access of one tool call (seed 004: one approval per call). */
export interface ApprovalRequest {
  /** The decision id of the call that raised it; `respond(id, …)` answers it. */
  id: string;
  sessionId: string;
  agentId: string;
  tool: string;
  items: readonly ApprovalItem[];
  /** The full request core handed over (call arguments, every access). */
  prompt: PromptRequest;
  /**
   * Epoch ms at which the approvals plugin stops waiting and denies (`PROMPT_TIMEOUT`): set by the plugin
   * when it asks (its `timeoutMs` from then), so a desk can show a countdown.
   */
  deadline?: number;
}

/**
 * How far an approval reaches beyond this call:
 * `once` — this call only; `directory` — the files directly in each path's directory, for the session
 * (seed 002's `Y`); `subtree` — the directory and everything beneath it, for the session (`a`).
 */
export type GrantScope = 'once' | 'directory' | 'subtree';

/** What a strategy answers. */
export interface ApprovalAnswer {
  approved: boolean;
  /** Default `once`. Ignored when `approved` is false. */
  grant?: GrantScope;
  /** Also write the grant to the policy overlay file (`overlayFile` option) for the user to review. */
  persist?: boolean;
  /** The grant lapses after this many milliseconds (overrides the `grants.ttlMs` option). */
  ttlMs?: number;
  /** The grant answers at most this many later calls (overrides the `grants.maxUses` option). */
  maxUses?: number;
  /** Seed 002's `q`: deny this call and every later prompt of the session. */
  cancelSession?: boolean;
  reason?: string;
  /** Who answered (`tty`, `queue`, an operator's name…). */
  by?: string;
}

/**
 * An approval strategy. `ask` returns an Observable so that an unanswered question can be withdrawn: the
 * plugin unsubscribes on timeout (or when another strategy of `firstOf` answered first), and the strategy's
 * teardown takes the question off the screen or the queue. The first value is the answer; completing
 * without a value means "no answer" (denied); an error means the approver failed (denied).
 */
export interface ApprovalStrategy {
  readonly name: string;
  ask(request: ApprovalRequest): Observable<ApprovalAnswer>;
  /** Optional: show an informational line to the human (e.g. a suggested policy rule). */
  notify?(message: string): void;
}

/** A standing approval: answers later prompts for the same operation within its scope, without asking. */
export interface Grant {
  /** For a `host` grant, the network method approved: `read` (GET, fetch, clone) or `write` (POST, push). */
  op: Op;
  /**
   * `path`: exactly this path; `directory`: files directly in it; `subtree`: it and everything beneath;
   * `host`: every call of the session that reaches this host with this method (NETWORK_PROMPT).
   */
  scope: 'path' | 'directory' | 'subtree' | 'host';
  /** Absolute, resolved path (a real path, never the raw form); for a `host` grant, the host (normalised). */
  path: string;
  /** Epoch milliseconds when it was granted. */
  createdAt: number;
  /** Epoch milliseconds after which it no longer answers. */
  expiresAt?: number;
  /** How many more calls it answers; absent = unlimited. */
  usesLeft?: number;
  by: string;
}
