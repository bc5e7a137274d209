import type { CallState, GrantStore, PromptAnswer } from '@toolgate/core';
import { savedProblem } from './sessionFile.js';
import type { Grant } from './types.js';

/** Everything the plugin remembers about one session. It lives in core's per-session map, nowhere else. */
export interface SessionState {
  readonly sessionId: string;
  grants: Grant[];
  cancelled: boolean;
  /** Questions asked so far (seed 002's max_confirmations_per_session counts these). */
  confirmations: number;
  /** Identical requests in flight share one question. */
  readonly inflight: Map<string, Promise<PromptAnswer>>;
  /** Human approvals per `op\0directory`, for the policy suggestion. */
  readonly approvedDirs: Map<string, number>;
  /** One question at a time per session, so an answer can cover the next request before it is asked. */
  turn: Promise<void>;
  /** Saves run in order; the last one written is the newest state. */
  saving: Promise<void>;
}

const KEY = 'approvals:session';
/** A synchronous flag beside the state, so every later call (not only prompts) can be refused at once. */
export const CANCELLED_KEY = 'approvals:cancelled';

export type Warn = (message: string, details: Record<string, unknown>) => void;

function fresh(sessionId: string): SessionState {
  return {
    sessionId,
    grants: [],
    cancelled: false,
    confirmations: 0,
    inflight: new Map(),
    approvedDirs: new Map(),
    turn: Promise.resolve(),
    saving: Promise.resolve(),
  };
}

/**
 * Loads the session from the store and merges it into `s` with the store's rules: cancelled stays
 * cancelled, the higher confirmation count wins, the stored grants replace the remembered ones (every
 * grant this machine made was saved before). Returns false when the store failed or held something
 * unusable (warned): the caller then relies on no grant at all.
 */
async function loadInto(s: SessionState, store: GrantStore, warn: Warn): Promise<boolean> {
  const sessionId = s.sessionId;
  try {
    const data = await store.load(sessionId);
    if (data === undefined) return true;
    const problem = savedProblem(data, sessionId);
    if (problem) {
      warn(
        `ignoring approvals of session ${JSON.stringify(sessionId)} from the ${store.name} store: ${problem}; the session starts with no grants`,
        { sessionId, store: store.name },
      );
      return false;
    }
    s.grants = (data.grants as unknown as Grant[]).map((g) => ({ ...g }));
    s.cancelled = s.cancelled || data.cancelled;
    s.confirmations = Math.max(s.confirmations, data.confirmations);
    return true;
  } catch (error) {
    const file = (error as { file?: unknown }).file;
    if (typeof file === 'string') {
      warn(
        `ignoring corrupt approvals file ${file}: ${(error as { problem?: string }).problem}; the session starts with no grants`,
        { file, sessionId },
      );
    } else {
      warn(
        `cannot load approvals for session ${JSON.stringify(sessionId)} from the ${store.name} store: ${(error as Error).message}; its prompts go to the approver`,
        { sessionId, store: store.name },
      );
    }
    return false;
  }
}

/**
 * This session's state, loaded from the grant store on first use (a resumed session keeps its grants). A
 * corrupt or unreadable entry is ignored with a warning: the session starts with no grants, which only
 * means more questions, never fewer.
 */
export function sessionOf(
  state: CallState,
  store: GrantStore | undefined,
  warn: Warn,
): Promise<SessionState> {
  const existing = state.session.get(KEY) as Promise<SessionState> | undefined;
  if (existing) return existing;
  const loading = (async () => {
    const s = fresh(state.ctx.sessionId);
    if (store === undefined) return s;
    if (!(await loadInto(s, store, warn))) s.grants = [];
    if (s.cancelled) state.session.set(CANCELLED_KEY, true);
    return s;
  })();
  state.session.set(KEY, loading);
  return loading;
}

/**
 * Re-reads a session another machine may have changed (a shared store): waits for this machine's own
 * saves first, so what it reads includes them. False when the store failed: no grant may be relied on.
 */
export async function refreshSession(s: SessionState, store: GrantStore, warn: Warn): Promise<boolean> {
  await s.saving;
  return loadInto(s, store, warn);
}

/** Queues a save of the session (when persistence is on) and waits for it; a failure is a warning. */
export function persistSession(s: SessionState, store: GrantStore | undefined, warn: Warn): Promise<void> {
  if (store === undefined) return Promise.resolve();
  const snapshot = {
    version: 1 as const,
    sessionId: s.sessionId,
    cancelled: s.cancelled,
    confirmations: s.confirmations,
    grants: s.grants.map((g) => ({ ...g })),
  };
  s.saving = s.saving.then(() =>
    store.save(snapshot).then(
      () => undefined,
      (error: unknown) =>
        warn(
          `cannot save approvals for session ${JSON.stringify(s.sessionId)}: ${(error as Error).message}`,
          {
            sessionId: s.sessionId,
          },
        ),
    ),
  );
  return s.saving;
}
