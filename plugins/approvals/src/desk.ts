/**
 * The approval desk: where a person (the web console, a chat bot, a script) sees every question that is
 * waiting and answers it. One interface, two kinds of implementation:
 *
 * - in process: `desk()` in this package — an `ApprovalStrategy` for `approvals({strategy})` that is also
 *   an `ApprovalDesk`; the console beside one gateway reads it directly;
 * - for a fleet: a store-backed desk (`@toolgate/store-redis`) that shows the questions of every process and
 *   carries answers back to the one process waiting.
 *
 * A reader (the console) uses only this interface. Contract an implementation must keep:
 *
 * 1. **`pending()`** returns every question waiting right now, oldest first, synchronously (a fleet desk
 *    keeps a local mirror fed by its store). Never an item that has settled.
 * 2. **`events$`** is hot: it emits `{type: 'raised', item}` once per question, and exactly one
 *    `{type: 'settled', id, cause}` per raised question, whichever way it ended — `answered` (someone's
 *    `respond` won; `approved`, `by` and `reason` say what they answered), `timeout` (the deadline passed: the
 *    call was denied; `approved` is `false`) or `withdrawn` (the asking side stopped waiting for another
 *    reason: another approver answered first, the call was aborted, the process is shutting down). A reader
 *    that wants a full picture subscribes to `events$` first and then reads `pending()`, keying items by
 *    `id` (an item can show up in both). `events$` never errors: a broken store is reported by settling its
 *    questions (`timeout`/`withdrawn`) and by raising nothing new, never by throwing into readers.
 * 3. **`respond(id, answer)`** answers one question. It resolves `true` only for the single answer that
 *    settled the question; `false` when there is no such question, or it already settled (answered in
 *    another tab or by another console, timed out, withdrawn) — a question is answered at most once. It
 *    rejects (a `ToolgateError` `TOOLGATE_ERR_INVALID_OPTIONS`) for a malformed answer, which approves
 *    nothing. `answer.by` names the person or tool that answered and is recorded in the decision and audit.
 *    An answer that arrives after `item.deadline` resolves `false`: the call was already denied.
 * 4. **Fail closed.** A desk never approves on its own. A question nobody answers is denied by the approvals
 *    plugin at its deadline; a desk that loses its store must let that happen (never answer `approved`).
 * 5. **`DeskItem` is plain JSON** (no functions, signals or class instances), so it can cross a process
 *    boundary unchanged and be rendered by a browser as is.
 *
 * @example
 * ```ts
 * import { createGuard } from '@toolgate/core';
 * import { approvals, desk } from '@toolgate/approvals';
 * const d = desk();
 * const guard = createGuard({ plugins: [myPolicy(), approvals({ strategy: d, timeoutMs: 60_000 })] });
 * d.events$.subscribe((e) => {
 *   if (e.type === 'raised') void d.respond(e.item.id, { approved: false, by: 'bot', reason: 'not today' });
 * });
 * ```
 */
import type { Observable } from 'rxjs';
import type { ApprovalAnswer, ApprovalItem, ApprovalRequest } from './types.js';

/** One path or host of a call, as the analysis saw it (every access of the call, not only the prompted ones). */
export interface DeskAccess {
  op: 'read' | 'write' | 'list';
  scope: 'path' | 'subtree';
  /** As the model wrote it. */
  raw: string;
  /** Absolute, lexically normalised. */
  path: string;
  /** Where the operation really lands; `null` when it could not be determined. */
  realPath: string | null;
  certain: boolean;
  /** Which extractor and argument or token produced it (`shell:redirect`, `folder-rules:args.path`). */
  origin: string;
  /** Why it is uncertain, when it is. */
  reason?: string;
}

/** One host a call reaches, and why it needs approval (network findings). */
export interface DeskHost {
  /** As written (`https://example.com/x`, `host:22`). */
  raw: string;
  /** Normalised host; `null` when it cannot be known. */
  host: string | null;
  port?: number;
  method: string;
  code: string;
  reason: string;
  /** The rule that asked for approval, in words (`pattern (access) from source`). */
  rule?: string;
}

/**
 * A question as a desk shows it: the approval request (every prompt-tier path with its rule and reason,
 * `items`) plus what a person needs to answer it. Plain JSON.
 */
export interface DeskItem extends Omit<ApprovalRequest, 'prompt' | 'deadline'> {
  items: readonly ApprovalItem[];
  /** Epoch ms at which the approvals plugin stops waiting and denies with `PROMPT_TIMEOUT`. */
  deadline: number;
  /** Epoch ms at which the question was raised. */
  raisedAt: number;
  /** The call's working directory (relative paths in `args` and `command` are resolved against it). */
  cwd: string;
  /** The shell command as the model wrote it, when the call is a shell call (`args.command` is a string). */
  command?: string;
  /** The call's arguments as JSON text (capped at 4,000 characters, marked `…` when cut). */
  args: string;
  /** Every path the call touches, as analysed (also the ones that need no approval). */
  accesses: readonly DeskAccess[];
  /** Every host the call reaches that needs approval. */
  hosts: readonly DeskHost[];
  /** Where the desk that raised it runs (a host name, a gateway id); empty for a desk in this process. */
  origin: string;
}

/** Why a question stopped waiting. */
export type SettleCause = 'answered' | 'timeout' | 'withdrawn';

export type DeskEvent =
  | { type: 'raised'; item: DeskItem }
  | {
      type: 'settled';
      id: string;
      cause: SettleCause;
      /** Present for `answered` (what was answered) and `timeout` (`false`). */
      approved?: boolean;
      by?: string;
      reason?: string;
    };

/** An answer given at a desk: who gave it is required. */
export type DeskAnswer = ApprovalAnswer & { by: string };

/** What the console reads and a fleet store implements (see this file's header for the contract). */
export interface ApprovalDesk {
  readonly name: string;
  /** Every question waiting now, oldest first. */
  pending(): DeskItem[];
  /** Hot stream of raised and settled questions. */
  readonly events$: Observable<DeskEvent>;
  /** Answers question `id`; `true` only for the answer that settled it. */
  respond(id: string, answer: DeskAnswer): Promise<boolean>;
}
