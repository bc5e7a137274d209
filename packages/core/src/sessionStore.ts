import { LruMap } from './lruMap.js';

/** Bounds on the per-session state core keeps (grants, confirmations and whatever plugins store). */
export interface SessionLimits {
  /** Most sessions kept in memory; the least recently used idle one is forgotten first (default 4096). */
  max: number;
  /** A session unused this long is forgotten (default 1 hour). */
  idleMs: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = { max: 4_096, idleMs: 3_600_000 };

interface Entry {
  store: Map<string, unknown>;
  last: number;
  /** Calls of this session in progress: their state is never forgotten under them. */
  active: number;
}

/**
 * Per-session stores in an LRU bounded by count and idle time, so a host that sees 100,000 sessions keeps a
 * few thousand, not all of them. A forgotten session starts again empty: plugins that must not forget
 * (approvals with a `dir`) persist what matters and reload it on the session's next call. Idle sessions are
 * swept lazily, when a new session arrives: no timer keeps the host alive.
 */
export class SessionStore {
  private readonly entries: LruMap<string, Entry>;

  constructor(private readonly limits: SessionLimits) {
    this.entries = new LruMap(Number.MAX_SAFE_INTEGER);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The store of `sessionId`, marked in use until `release` is called with the same entry. */
  acquire(sessionId: string, now: number): Entry {
    let entry = this.entries.get(sessionId);
    if (!entry) {
      this.sweep(now);
      entry = { store: new Map(), last: now, active: 0 };
      this.entries.set(sessionId, entry);
    }
    entry.last = now;
    entry.active++;
    return entry;
  }

  release(entry: Entry): void {
    entry.active--;
  }

  delete(sessionId: string): void {
    this.entries.delete(sessionId);
  }

  /** Forgets idle sessions, oldest first, and the least recently used ones over the bound (never busy ones). */
  private sweep(now: number): void {
    let skipped = 0;
    for (const [id, entry] of this.entries.entries()) {
      const over = this.entries.size >= this.limits.max;
      const idle = now - entry.last >= this.limits.idleMs;
      if (!over && !idle) break; // LRU order: every later entry was used more recently
      if (entry.active > 0) {
        // A session with a call in flight stays; a few of them never make the sweep scan everything.
        if (++skipped > 64) break;
        continue;
      }
      this.entries.delete(id);
    }
  }
}
