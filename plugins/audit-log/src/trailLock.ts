import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import { isProcessAlive } from '@toolgate/core';

const EXCL = constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY;
const pause = new Int32Array(new SharedArrayBuffer(4));

/** Blocks the thread for `ms` (the lock is taken synchronously: a `sync` record is written before check() resolves). */
function sleep(ms: number): void {
  Atomics.wait(pause, 0, 0, ms);
}

/** A holder that released within this many ms is a busy writer: it yields to waiters. */
const RECENT_MS = 100;
/** How long a busy writer waits for a waiter to take its turn. */
const POLITE_MS = 20;
/** A `.want` mark older than this was left by a waiter that gave up or died. */
const WANT_FRESH_MS = 10;
/** How often a holder looks whether to let go: nothing written since the last look, or someone waits. */
const HOLD_CHECK_MS = 1;

/** Tells the holder someone waits: the mark's mtime is refreshed on every poll. */
function markWant(path: string): void {
  try {
    const now = new Date();
    utimesSync(path, now, now);
  } catch {
    try {
      closeSync(openSync(path, 'a', 0o600));
    } catch {
      /* best effort: fairness, not correctness */
    }
  }
}

function freshWant(path: string): boolean {
  const st = statSync(path, { throwIfNoEntry: false });
  return st !== undefined && Date.now() - st.mtimeMs < WANT_FRESH_MS;
}

function olderThan(path: string, ms: number): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs > ms;
  } catch {
    return false;
  }
}

// Locks this process holds. One that is about to wait releases the others first: it blocks the thread, so
// their hold checks cannot run, and a process holding trail B while waiting for trail A (and another holding
// A while waiting for B) would wait out lockWaitMs on both sides.
const holding = new Set<TrailLock>();

function releaseOthers(self: TrailLock): void {
  for (const lock of holding) if (lock !== self && lock.busy === 0) lock.release();
}

/**
 * An advisory lock between the processes that append to one trail (eight hook processes of parallel tool
 * calls): a `<trail>.lock` file created with O_EXCL, holding the owner's pid and a random token. No native
 * code, no flock(2). Whoever holds it appends and rotates; everyone else waits. A lock left by a process
 * that died holding it (SIGKILL) is broken by the first waiter that finds its pid gone.
 *
 * The holder keeps the lock while it keeps writing: it lets go once a millisecond or two passed without a
 * record, within a millisecond when another writer marks that it waits, and at exit. Taking and releasing it
 * is about ten syscalls with the re-read of the trail (~35 µs here): a host that serves one call per
 * event-loop turn (an MCP gateway) paid that on every record when it was released at the end of each turn.
 */
export class TrailLock {
  private held = false;
  private readonly token = randomBytes(8).toString('hex');
  private holdTimer: NodeJS.Timeout | undefined;
  /** A record was written under the lock since the holder last looked. */
  private used = false;
  private lastRelease = 0;
  private readonly want: string;

  constructor(
    readonly path: string,
    private readonly waitMs: number,
  ) {
    this.want = `${path}.want`;
  }

  get isHeld(): boolean {
    return this.held;
  }

  /** Incremented each time the lock is taken: whoever caches trail state re-reads it when this changed. */
  generation = 0;

  /** Non-zero while its holder is in the middle of an append or rotation: then it is never let go early. */
  busy = 0;

  /**
   * Takes the lock (a no-op while held). Returns true when it was taken now — the caller must then re-read
   * what other writers may have changed. Throws when it cannot be had within `waitMs`.
   */
  acquire(): boolean {
    if (this.held) {
      this.used = true;
      return false;
    }
    const content = `${process.pid} ${this.token}\n`;
    const start = Date.now();
    const deadline = start + this.waitMs;
    // Fairness: a writer that held the lock a moment ago lets a waiting writer (a fresh `.want` mark) go
    // first, for at most POLITE_MS. Without it a busy writer re-takes the lock before any waiter polls, and
    // the others starve (five of eight hook processes lost every record that way).
    if (start - this.lastRelease < RECENT_MS && freshWant(this.want)) {
      releaseOthers(this);
      while (freshWant(this.want) && Date.now() - start < POLITE_MS) sleep(0.2);
    }
    let delay = 0.1;
    let marked = false;
    for (;;) {
      try {
        const fd = openSync(this.path, EXCL, 0o600);
        try {
          writeSync(fd, content);
        } finally {
          closeSync(fd);
        }
        this.held = true;
        holding.add(this);
        this.used = true;
        this.generation++;
        this.scheduleHoldCheck();
        if (marked) {
          try {
            unlinkSync(this.want); // our turn came; waiters still waiting mark it again
          } catch {
            /* gone */
          }
        }
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      if (!marked) releaseOthers(this);
      markWant(this.want);
      marked = true;
      this.breakIfStale();
      if (Date.now() >= deadline)
        throw Object.assign(
          new Error(`audit trail lock ${this.path} is held by another writer (waited ${this.waitMs} ms)`),
          { code: 'ELOCKED' },
        );
      sleep(delay);
      delay = Math.min(delay * 2, 1);
    }
  }

  release(): void {
    if (this.holdTimer) {
      clearTimeout(this.holdTimer);
      this.holdTimer = undefined;
    }
    if (!this.held) return;
    this.held = false;
    holding.delete(this);
    this.lastRelease = Date.now();
    try {
      // Only our own lock is removed: if it was broken and retaken meanwhile, the file is someone else's.
      if (readFileSync(this.path, 'utf8').includes(this.token)) unlinkSync(this.path);
    } catch {
      /* gone already */
    }
  }

  private scheduleHoldCheck(): void {
    this.holdTimer = setTimeout(() => {
      this.holdTimer = undefined;
      if (!this.held) return;
      if (this.used && !freshWant(this.want)) {
        this.used = false;
        this.scheduleHoldCheck();
      } else this.release();
    }, HOLD_CHECK_MS);
    this.holdTimer.unref();
  }

  private breakIfStale(): void {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch {
      return; // released meanwhile
    }
    const pid = Number.parseInt(text, 10);
    if (!Number.isInteger(pid) || pid <= 0) {
      // Empty: being written right now (create, then write) — or its writer died in between.
      if (!olderThan(this.path, 2_000)) return;
    } else if (isProcessAlive(pid)) return;
    try {
      // Remove it only if it is still the stale one we read.
      if (readFileSync(this.path, 'utf8') === text) unlinkSync(this.path);
    } catch {
      /* someone else broke it first */
    }
  }
}
