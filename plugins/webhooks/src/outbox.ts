import {
  appendFileSync,
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  write as writeFd,
  writeFileSync,
} from 'node:fs';
import { appendFile, open, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ToolgateError } from '@toolgate/core';
import { claimOrphans, dropClaimed, ownOutboxFile, releaseOutboxFile } from './adoptOutboxes.js';
import type { NotificationEvent } from './event.js';

/** One event waiting for one target. */
export interface OutboxEntry {
  id: string;
  target: string;
  event: NotificationEvent;
  attempts: number;
  /** Epoch ms it was queued. */
  at: number;
}

export interface DeadLetter {
  id: string;
  target: string;
  reason: string;
  detail: string;
  attempts: number;
  at: number;
  event: NotificationEvent;
}

export interface OutboxOptions {
  maxPending: number;
  maxDeadLetterBytes: number;
  /** Rewrite the file after this many acknowledgements even if it has not drained (default 1000). */
  compactAfter?: number;
  /** Disk errors after opening: reported, never thrown into a decision. */
  onError(error: unknown): void;
}

export interface Outbox {
  readonly file: string;
  readonly deadLetterFile: string;
  /** Entries left pending by an earlier process, in the order they were queued. */
  readonly recovered: readonly OutboxEntry[];
  /** Lines of the file that could not be parsed at open (a torn last line after a crash). */
  readonly skippedLines: number;
  readonly size: number;
  /** O(1): records in memory and queues one line for the writer. False when the bound is reached. */
  put(entry: OutboxEntry): boolean;
  attempted(entry: OutboxEntry): void;
  ack(id: string): void;
  dead(letter: DeadLetter): void;
  /** Resolves once every line recorded so far is written. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

type Line =
  | { k: 'put'; id: string; t: string; a: number; at: number; e: NotificationEvent }
  | { k: 'ack'; id: string }
  | { k: 'try'; id: string; n: number };

function putLine(e: OutboxEntry): string {
  return `${JSON.stringify({ k: 'put', id: e.id, t: e.target, a: e.attempts, at: e.at, e: e.event })}\n`;
}

function load(file: string): { entries: Map<string, OutboxEntry>; skipped: number } {
  const entries = new Map<string, OutboxEntry>();
  let skipped = 0;
  if (!existsSync(file)) return { entries, skipped };
  for (const text of readFileSync(file, 'utf8').split('\n')) {
    if (text === '') continue;
    let line: Line;
    try {
      line = JSON.parse(text) as Line;
    } catch {
      skipped++;
      continue;
    }
    if (
      line.k === 'put' &&
      typeof line.id === 'string' &&
      typeof line.t === 'string' &&
      line.e &&
      typeof line.e === 'object'
    ) {
      if (!entries.has(line.id))
        entries.set(line.id, {
          id: line.id,
          target: line.t,
          event: line.e,
          attempts: Number(line.a) || 0,
          at: Number(line.at) || 0,
        });
    } else if (line.k === 'ack') {
      entries.delete(line.id);
    } else if (line.k === 'try') {
      const entry = entries.get(line.id);
      if (entry && typeof line.n === 'number') entry.attempts = Math.max(entry.attempts, line.n);
    } else {
      skipped++;
    }
  }
  return { entries, skipped };
}

/**
 * The durable outbox: an append-only JSONL log (`put`, `try`, `ack` lines) of this instance's own, seeded at
 * open with whatever dead owners left in the directory, rewritten to just the pending entries as it drains. Memory is the source of truth while running; the log is written
 * by one serial writer off the decision path, so enqueueing costs no I/O. A crash can lose only lines the
 * writer had not reached yet (the last few milliseconds); a restart delivers everything else.
 */
export function openOutbox(dir: string, options: OutboxOptions): Outbox {
  const deadLetterFile = join(dir, 'dead-letter.jsonl');
  const compactAfter = options.compactAfter ?? 1000;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new ToolgateError(
      'TOOLGATE_ERR_IO',
      `webhooks(): cannot create outboxDir ${JSON.stringify(dir)}: ${(error as Error).message}`,
      { field: 'outboxDir' },
    );
  }
  const file = ownOutboxFile(dir);

  const pending = new Map<string, OutboxEntry>();
  let skipped = 0;
  let fd: number;
  let deadBytes = 0;
  try {
    const claimed = claimOrphans(dir, file);
    const merged: OutboxEntry[] = [];
    for (const path of claimed) {
      const loaded = load(path);
      skipped += loaded.skipped;
      merged.push(...loaded.entries.values());
    }
    // Several dead owners: restore enqueue order (stable, so one file's own order is kept within a millisecond).
    merged.sort((a, b) => a.at - b.at);
    // An id seen twice (a crash between writing the merged file and removing the claimed ones) is one event.
    for (const entry of merged) if (!pending.has(entry.id)) pending.set(entry.id, entry);
    // Start from a compact file of our own: the replayed state is all that matters.
    writeSnapshotSync();
    dropClaimed(claimed);
    fd = openSync(file, 'a', 0o600);
    deadBytes = existsSync(deadLetterFile) ? statSync(deadLetterFile).size : 0;
  } catch (error) {
    releaseOutboxFile(file);
    throw new ToolgateError(
      'TOOLGATE_ERR_IO',
      `webhooks(): cannot use outboxDir ${JSON.stringify(dir)}: ${(error as Error).message}`,
      { field: 'outboxDir' },
    );
  }
  const recovered = [...pending.values()];

  // Records are serialised by the writer, not by the caller: JSON.stringify of an event costs microseconds
  // that would otherwise be spent inside the decision.
  let lines: Array<string | OutboxEntry> = [];
  let deadLines: DeadLetter[] = [];
  let compactRequested = false;
  let sinceCompact = 0;
  let writing: Promise<void> | null = null;
  let closed = false;

  function snapshot(): string {
    let out = '';
    for (const entry of pending.values()) out += putLine(entry);
    return out;
  }

  function writeSnapshotSync(): void {
    const tmp = `${file}.tmp`;
    writeFileSync(tmp, snapshot(), { mode: 0o600 });
    const tfd = openSync(tmp, 'r+');
    fsyncSync(tfd);
    closeSync(tfd);
    renameSync(tmp, file);
  }

  function writeAll(data: string): Promise<void> {
    const buffer = Buffer.from(data);
    return new Promise((resolve, reject) => {
      const step = (offset: number) => {
        writeFd(fd, buffer, offset, buffer.length - offset, null, (error, written) => {
          if (error) return reject(error);
          if (offset + written < buffer.length) return step(offset + written);
          resolve();
        });
      };
      step(0);
    });
  }

  async function compact(): Promise<void> {
    const tmp = `${file}.tmp`;
    const handle = await open(tmp, 'w', 0o600);
    try {
      await handle.writeFile(snapshot());
      // Synced before the rename: the file that replaces the log is never an empty shell after a power cut.
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, file);
    // The old descriptor points at the replaced inode: reopen so later appends land in the new file.
    const old = fd;
    fd = openSync(file, 'a', 0o600);
    closeSync(old);
  }

  async function writeDead(batch: DeadLetter[]): Promise<void> {
    let chunk = '';
    let chunkBytes = 0;
    for (const letter of batch) {
      const line = `${JSON.stringify(letter)}\n`;
      const bytes = Buffer.byteLength(line);
      if (deadBytes + chunkBytes > 0 && deadBytes + chunkBytes + bytes > options.maxDeadLetterBytes) {
        // Bounded disk: keep one previous generation, drop the one before.
        if (chunk !== '') await appendFile(deadLetterFile, chunk, { mode: 0o600 });
        await rename(deadLetterFile, `${deadLetterFile}.1`);
        deadBytes = 0;
        chunk = '';
        chunkBytes = 0;
      }
      chunk += line;
      chunkBytes += bytes;
    }
    if (chunk !== '') await appendFile(deadLetterFile, chunk, { mode: 0o600 });
    deadBytes += chunkBytes;
  }

  async function drain(): Promise<void> {
    try {
      while (lines.length > 0 || deadLines.length > 0 || compactRequested) {
        if (deadLines.length > 0) {
          const batch = deadLines;
          deadLines = [];
          await writeDead(batch);
        }
        if (compactRequested) {
          // The snapshot reflects every queued line (memory is the truth), so they need not be written.
          compactRequested = false;
          lines = [];
          await compact();
          continue;
        }
        if (lines.length > 0) {
          let data = '';
          for (const line of lines) data += typeof line === 'string' ? line : putLine(line);
          lines = [];
          await writeAll(data);
        }
      }
    } catch (error) {
      // Lines taken for a failed write are gone from the log, not from memory: the next drain rewrites the
      // whole pending state instead of appending (disk full, say, then freed).
      compactRequested = true;
      options.onError(error);
    } finally {
      writing = null;
    }
  }

  function schedule(): void {
    if (closed || writing) return;
    // setImmediate batches every line recorded in this turn of the event loop into one write.
    writing = new Promise<void>((resolve) => setImmediate(resolve)).then(drain);
  }

  function record(line: string | OutboxEntry): void {
    if (closed) {
      // After close there is no writer: append synchronously so the next start still sees it.
      try {
        appendFileSync(file, typeof line === 'string' ? line : putLine(line), { mode: 0o600 });
      } catch (error) {
        options.onError(error);
      }
      return;
    }
    lines.push(line);
    schedule();
  }

  // Acks and attempt records both grow the log; either kind triggers a rewrite after compactAfter of them,
  // so a long outage (one `try` line per retry) cannot grow the file without bound.
  function logged(): void {
    sinceCompact++;
    if (pending.size === 0 || sinceCompact >= compactAfter) {
      sinceCompact = 0;
      compactRequested = true;
      schedule();
    }
  }

  return {
    file,
    deadLetterFile,
    recovered,
    skippedLines: skipped,
    get size() {
      return pending.size;
    },
    put(entry) {
      if (pending.size >= options.maxPending) return false;
      pending.set(entry.id, entry);
      record(entry);
      return true;
    },
    attempted(entry) {
      if (!pending.has(entry.id)) return;
      record(`${JSON.stringify({ k: 'try', id: entry.id, n: entry.attempts })}\n`);
      if (!closed) logged();
    },
    ack(id) {
      if (!pending.delete(id)) return;
      record(`${JSON.stringify({ k: 'ack', id })}\n`);
      if (!closed) logged();
    },
    dead(letter) {
      if (closed) {
        try {
          appendFileSync(deadLetterFile, `${JSON.stringify(letter)}\n`, { mode: 0o600 });
        } catch (error) {
          options.onError(error);
        }
      } else {
        deadLines.push(letter);
      }
      if (pending.delete(letter.id)) {
        record(`${JSON.stringify({ k: 'ack', id: letter.id })}\n`);
        if (!closed) logged();
      } else {
        schedule();
      }
    },
    async settle() {
      while (writing) await writing;
    },
    async close() {
      if (closed) return;
      while (writing) await writing;
      closed = true;
      try {
        // Leave a compact file behind: exactly what the next start has to deliver.
        writeSnapshotSync();
        if (deadLines.length > 0)
          appendFileSync(deadLetterFile, deadLines.map((l) => `${JSON.stringify(l)}\n`).join(''), {
            mode: 0o600,
          });
        deadLines = [];
        lines = [];
      } catch (error) {
        options.onError(error);
      } finally {
        closeSync(fd);
        // Nothing pending: leave no file behind. Otherwise the next start (of any process) adopts it.
        if (pending.size === 0) {
          try {
            unlinkSync(file);
          } catch {
            /* already gone */
          }
        }
        releaseOutboxFile(file);
      }
    },
  };
}

/** The outbox of a plugin with no targets: nothing can be queued, so nothing is created on disk. */
export function disabledOutbox(dir: string): Outbox {
  return {
    file: join(dir, 'outbox-disabled.jsonl'),
    deadLetterFile: join(dir, 'dead-letter.jsonl'),
    recovered: [],
    skippedLines: 0,
    size: 0,
    put: () => false,
    attempted: () => undefined,
    ack: () => undefined,
    dead: () => undefined,
    settle: async () => undefined,
    close: async () => undefined,
  };
}

/** Reads a dead-letter file (for tests and tools). */
export async function readDeadLetters(file: string): Promise<DeadLetter[]> {
  try {
    await stat(file);
  } catch {
    return [];
  }
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as DeadLetter);
}
