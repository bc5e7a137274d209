import type { GrantStore, StoredSession } from '@toolgate/core';
import { loadSession, saveSession } from './sessionFile.js';

/** A session file that exists but cannot be used; the plugin warns with its name and starts with no grants. */
export interface CorruptSessionError extends Error {
  file: string;
  problem: string;
}

/**
 * The default GrantStore: one file per session, `<dir>/<sessionId>/grants.json` (written atomically, mode
 * 0600). Local to one machine; a fleet passes another store (`@toolgate/store-redis`) as `approvals({store})`.
 * A missing file is a new session; a corrupt one rejects with a `CorruptSessionError`.
 *
 * @example
 * ```ts
 * import { approvals, fileGrantStore, tty } from '@toolgate/approvals';
 * const plugin = approvals({ strategy: tty(), store: fileGrantStore('/var/lib/toolgate/sessions') });
 * ```
 */
export function fileGrantStore(dir: string): GrantStore {
  return {
    name: 'file',
    async load(sessionId) {
      const result = await loadSession(dir, sessionId);
      if (result.kind === 'missing') return undefined;
      if (result.kind === 'corrupt')
        throw Object.assign(new Error(`corrupt approvals file ${result.file}: ${result.problem}`), {
          file: result.file,
          problem: result.problem,
        }) satisfies CorruptSessionError;
      return result.data as unknown as StoredSession;
    },
    async save(session) {
      await saveSession(dir, session as unknown as Parameters<typeof saveSession>[1]);
    },
  };
}
