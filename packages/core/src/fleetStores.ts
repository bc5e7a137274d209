import type { CallContext, Decision } from './types.js';

/**
 * Interfaces for sharing policy, grants, approvals and audit across a fleet of agents on many machines
 * (docs/scale.md). Types only: what each store must do for toolgate's guarantees to hold when the state
 * lives outside one process. The built-in implementations are local (files); an adapter to Redis, NATS or
 * an OpenTelemetry collector implements the same shape.
 */

/** One line of the audit trail (JSON, as the audit-log plugin writes it), for a sink outside the host. */
export interface AuditSink {
  readonly name: string;
  /**
   * Takes one serialised record. Synchronous on purpose: it is called on the decision path after the local
   * trail has the record, so it must only hand the line over (a pino destination's `write` has this shape;
   * `auditLog({ship: [...]})` accepts it today). Errors must not escape: the local trail is the record.
   */
  write(line: string): void;
  /** Resolves true once everything handed over is acknowledged by the store (at shutdown). */
  flush?(timeoutMs: number): Promise<boolean>;
}

/** A session's grants and approval state as stored (approvals' `grants.json` has this content today). */
export interface StoredSession {
  version: 1;
  sessionId: string;
  cancelled: boolean;
  confirmations: number;
  grants: readonly Record<string, unknown>[];
}

/**
 * Where sessions' grants live. Must be read-your-writes for one session (a grant saved by one machine is seen
 * by the next call of the session on any machine), and a cancellation must never be lost: stores that
 * merge concurrent writes keep `cancelled: true` and the higher `confirmations`.
 */
export interface GrantStore {
  readonly name: string;
  load(sessionId: string): Promise<StoredSession | undefined>;
  save(session: StoredSession): Promise<void>;
  /** Told when another machine changed a session (a Redis keyspace event, a NATS KV watch). */
  watch?(sessionId: string, onChange: (session: StoredSession) => void): () => void;
}

/** A question for a human, published to whoever answers for the fleet (a Redis stream, a NATS subject). */
export interface ApprovalMessage {
  id: string;
  sessionId: string;
  agentId: string;
  tool: string;
  summary: string;
  /** Epoch ms after which nobody may answer (the asking machine denies then). */
  deadline: number;
  /**
   * What an approver's screen shows beyond `summary` (the approvals plugin puts its `DeskItem` here: every
   * path with its rule and reason). Plain JSON; a bus carries it unchanged and never decides on it.
   */
  detail?: Record<string, unknown>;
}

export interface ApprovalAnswerMessage {
  id: string;
  approved: boolean;
  by: string;
  grant?: 'once' | 'directory' | 'subtree';
  reason?: string;
  /** The approver's `q`: deny this call and every later one of the session. */
  cancelSession?: boolean;
  /** Also write the grant to the policy overlay for review. */
  persist?: boolean;
  /** The grant lapses after this many ms / answers at most this many later calls. */
  ttlMs?: number;
  maxUses?: number;
}

/**
 * The approval bus: at-least-once delivery of questions to approvers and of answers back to the one machine
 * waiting. An answer after the deadline is ignored (the call was denied); a duplicate answer is ignored.
 */
export interface ApprovalBus {
  publish(request: ApprovalMessage): Promise<void>;
  /**
   * Calls `onAnswer` at most once, with the answer that won. `onError` (optional) is told when the bus can
   * no longer deliver an answer in time (the store is unreachable at the deadline); the asker denies.
   */
  answers(
    requestId: string,
    onAnswer: (answer: ApprovalAnswerMessage) => void,
    onError?: (error: Error) => void,
  ): () => void;
  /**
   * Optional: the asker stopped waiting (`timeout`: its deadline passed; `withdrawn`: another reason);
   * approvers' screens drop the question and later answers lose.
   */
  withdraw?(requestId: string, cause: 'timeout' | 'withdrawn'): Promise<void>;
}

/** A policy distributed to many machines, versioned by its hash (the hash every audit record carries). */
export interface PolicySource<Policy = unknown> {
  current(): { policy: Policy; hash: string };
  /** A new version: hosts swap guards between calls, never during one. */
  subscribe(onChange: (next: { policy: Policy; hash: string }) => void): () => void;
}

/** What a fleet-wide observer of decisions receives (an OTLP log record's body, for example). */
export interface DecisionEvent {
  decision: Decision;
  ctx: Pick<CallContext, 'sessionId' | 'agentId' | 'userId'>;
  host: string;
}
