import type { CallState, PromptAnswer } from '@toolgate/core';
import { loadSession, saveSession } from './sessionFile.js';
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
 * This session's state, loaded from `<dir>/<sessionId>/grants.json` on first use (a resumed session keeps
 * its grants). A corrupt file is ignored with a warning: the session starts with no grants, which only
 * means more questions, never fewer.
 */
export function sessionOf(state: CallState, dir: string | undefined, warn: Warn): Promise<SessionState> {
  const existing = state.session.get(KEY) as Promise<SessionState> | undefined;
  if (existing) return existing;
  const sessionId = state.ctx.sessionId;
  const loading = (async () => {
    const s = fresh(sessionId);
    if (dir === undefined) return s;
    try {
      const result = await loadSession(dir, sessionId);
      if (result.kind === 'loaded') {
        s.grants = result.data.grants;
        s.cancelled = result.data.cancelled;
        if (s.cancelled) state.session.set(CANCELLED_KEY, true);
        s.confirmations = result.data.confirmations;
      } else if (result.kind === 'corrupt') {
        warn(
          `ignoring corrupt approvals file ${result.file}: ${result.problem}; the session starts with no grants`,
          {
            file: result.file,
            sessionId,
          },
        );
      }
    } catch (error) {
      warn(`cannot load approvals for session ${JSON.stringify(sessionId)}: ${(error as Error).message}`, {
        sessionId,
      });
    }
    return s;
  })();
  state.session.set(KEY, loading);
  return loading;
}

/** Queues a save of the session (when persistence is on) and waits for it; a failure is a warning. */
export function persistSession(s: SessionState, dir: string | undefined, warn: Warn): Promise<void> {
  if (dir === undefined) return Promise.resolve();
  const snapshot = {
    version: 1 as const,
    sessionId: s.sessionId,
    cancelled: s.cancelled,
    confirmations: s.confirmations,
    grants: s.grants.map((g) => ({ ...g })),
  };
  s.saving = s.saving.then(() =>
    saveSession(dir, snapshot).then(
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
