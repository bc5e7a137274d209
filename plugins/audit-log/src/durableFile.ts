import {
  closeSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { lazyBuiltin } from '@toolgate/core';
import { chainLine, GENESIS, splitChained } from './chain.js';
import { RotatedCompressor } from './compressRotated.js';
import { lastLine } from './lastLine.js';
import { shiftFiles } from './trailFiles.js';
import { TrailLock } from './trailLock.js';

/**
 * `sync`: each record is written (write(2) has returned) before the tap returns — it survives SIGKILL,
 * `process.exit` and a crash of the host. `fsync`: additionally flushed to the device (survives power loss).
 * `async`: queued and written on the next turn of the event loop (and at `exit`); lost on SIGKILL.
 */
export type Durability = 'sync' | 'fsync' | 'async';

export interface TrailCounters {
  /** Records on disk. */
  written: number;
  /** Failed writes, opens or rotations (EACCES, ENOSPC, EROFS…). */
  failures: number;
  /** Records waiting in memory for the disk to come back. */
  buffered: number;
  /** Records lost because the buffer was full. */
  dropped: number;
  rotations: number;
}

export interface DurableFileOptions {
  file: string;
  maxSize: number;
  keep: number;
  durability: Durability;
  chain: boolean;
  maxBuffered: number;
  retryMs: number;
  /** Gzip rotated files (`.N.gz`), off the decision path. */
  compress: boolean;
  /**
   * Other processes may append to the same trail (hook processes of parallel tool calls): take the
   * `<file>.lock` advisory lock around append and rotate, waiting at most this many ms (default 2000);
   * `false` when this process is known to be the only writer.
   */
  lockWaitMs: number | false;
  /** Told of every failure, with a snapshot of the counters after it. */
  onError(
    error: unknown,
    what: 'write' | 'open' | 'rotate' | 'dropped',
    counters: Readonly<TrailCounters>,
  ): void;
}

// Only a restart right after a rotation reads a compressed file: the hook's short process never loads zlib.
const zlib = lazyBuiltin<typeof import('node:zlib')>('node:zlib');

const open = new Set<DurableFile>();
let exitHook = false;
// A process that exits normally (process.exit, end of script) still gets queued records written.
function flushAllAtExit(): void {
  for (const file of open) {
    // Records that cannot be written even now are lost with the process: never silently.
    if (!file.flush())
      process.stderr.write(
        `toolgate audit: ${file.counters.buffered} record(s) could not be written to ${file.path} and are lost at exit\n`,
      );
    file.releaseLock();
  }
}

/**
 * An append-only JSONL file with exact size rotation, an optional hash chain, and a memory buffer that
 * holds records while the disk fails and retries them off the decision path.
 */
export class DurableFile {
  readonly counters: TrailCounters = { written: 0, failures: 0, buffered: 0, dropped: 0, rotations: 0 };
  private fd: number | undefined;
  private size = 0;
  private prev = GENESIS;
  private readonly queue: string[] = [];
  private failing = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryDelay: number;
  private flushScheduled = false;
  private closed = false;
  private readonly compressor: RotatedCompressor | undefined;
  private readonly lock: TrailLock | undefined;
  /** The lock generation our size and last hash were read at. */
  private syncedAt = -1;

  constructor(private readonly options: DurableFileOptions) {
    this.retryDelay = options.retryMs;
    this.lock =
      options.lockWaitMs === false ? undefined : new TrailLock(`${options.file}.lock`, options.lockWaitMs);
    open.add(this);
    if (!exitHook) {
      exitHook = true;
      process.on('exit', flushAllAtExit);
    }
    this.compressor = options.compress
      ? new RotatedCompressor(
          options.file,
          (error) => this.report(error, 'rotate'),
          (fn) => this.exclusive(fn),
        )
      : undefined;
    try {
      this.openFile();
    } catch (error) {
      this.fail(error, 'open');
    }
    this.compressor?.schedule(); // plain rotated files left by an earlier run
  }

  get path(): string {
    return this.options.file;
  }

  /** False from a failed open or write until every buffered record is on disk again. */
  get healthy(): boolean {
    return !this.failing && (this.fd !== undefined || this.closed || this.options.durability === 'async');
  }

  /** True while rotated files are still being compressed. */
  get compressing(): boolean {
    return this.compressor?.busy ?? false;
  }

  /** Appends one record: `content` is a serialised JSON object without a newline. Never throws. */
  append(content: string): void {
    if (this.closed) return;
    if (this.failing || this.options.durability === 'async') {
      this.enqueue(content);
      if (!this.failing) this.scheduleFlush();
      return;
    }
    try {
      this.whileBusy(() => this.persist(content));
    } catch (error) {
      this.enqueue(content);
      this.fail(error, 'write');
    }
  }

  /** Writes every queued record now; false when some remain because the disk still fails. */
  flush(): boolean {
    if (this.closed) return true;
    if (this.fd === undefined) {
      try {
        this.openFile();
      } catch (error) {
        this.fail(error, 'open');
        return false;
      }
    }
    while (this.queue.length > 0) {
      try {
        // Many records per write(2): `async` costs one syscall per batch, not per record.
        this.queue.splice(
          0,
          this.whileBusy(() => this.persistBatch(this.queue)),
        );
      } catch (error) {
        this.fail(error, 'write');
        return false;
      }
      this.counters.buffered = this.queue.length;
    }
    this.failing = false;
    this.retryDelay = this.options.retryMs;
    return true;
  }

  close(): void {
    this.flush();
    this.closed = true;
    this.counters.dropped += this.queue.length;
    this.queue.length = 0;
    this.counters.buffered = 0;
    open.delete(this);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.closeFd();
    this.lock?.release();
  }

  /** Runs `fn` holding the trail lock (renames of rotated files must not interleave with another writer's rotation). */
  private exclusive(fn: () => void): void {
    this.whileBusy(() => {
      const taken = this.lock?.acquire() ?? false;
      try {
        fn();
      } finally {
        // Taken for this alone (a compressor's rename, maybe after the last record): let go at once rather
        // than at the next hold check, so the other writers' renames do not wait on our event loop.
        if (taken) this.lock?.release();
      }
    });
  }

  /**
   * Runs `fn` (which takes the lock and works under it) with the lock marked busy: an error listener that
   * makes this process wait for another trail's lock meanwhile must not release this one mid-rotation.
   */
  private whileBusy<T>(fn: () => T): T {
    const lock = this.lock;
    if (!lock) return fn();
    lock.busy++;
    try {
      return fn();
    } finally {
      lock.busy--;
    }
  }

  /** Lets other processes write (at exit; otherwise the lock is let go when idle or wanted, see TrailLock). */
  releaseLock(): void {
    this.lock?.release();
  }

  /**
   * Just took the lock: another process may have appended (our last hash is stale) or rotated (our fd is the
   * rotated file now) since we last held it. Re-reads only what changed: an fstat and a stat when nothing did.
   */
  private syncWithOthers(): void {
    // The first time: what the constructor read was read without the lock, possibly mid-rotation.
    if (this.fd === undefined || this.syncedAt === -1) {
      this.closeFd();
      this.openFile();
      return;
    }
    const st = statSync(this.options.file, { throwIfNoEntry: false });
    const own = fstatSync(this.fd);
    if (!st || st.ino !== own.ino || st.dev !== own.dev) {
      this.closeFd();
      this.openFile();
    } else if (own.size !== this.size) {
      this.closeFd();
      this.openFile();
    }
  }

  private openFile(): void {
    const { file } = this.options;
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const tail = lastLine(file);
    let last = tail.line;
    if (last === undefined && tail.size === 0)
      last = lastLine(`${file}.1`).line ?? lastGzipLine(`${file}.1.gz`);
    this.prev = (last !== undefined && splitChained(last)?.hash) || this.prev;
    const fd = openSync(file, 'a', 0o600);
    try {
      this.size = fstatSync(fd).size;
      // A torn last line (a writer killed inside its write(2)): the record was never acknowledged, so it is
      // cut off and the chain goes on from the last whole record. Only while holding the lock (or with no
      // other writers): unlocked, the "torn" bytes could be another writer's record still being written.
      if (this.size > 0 && !tail.endsWithNewline && (this.lock === undefined || this.lock.isHeld)) {
        if (tail.tornBytes >= 0) {
          ftruncateSync(fd, this.size - tail.tornBytes);
          this.size -= tail.tornBytes;
        } else this.size += writeSync(fd, '\n'); // longer than any record: foreign data, kept and ended
      }
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    this.fd = fd;
  }

  /** Takes the lock (other writers) and re-reads what they changed since we last held it. */
  private own(): void {
    if (this.lock) {
      this.lock.acquire();
      if (this.lock.generation !== this.syncedAt) {
        this.syncWithOthers();
        this.syncedAt = this.lock.generation;
      }
    }
    if (this.fd === undefined) this.openFile();
  }

  /**
   * Writes the first records of `contents` with one write(2), up to a rotation boundary (or 512 records);
   * returns how many. Nothing is counted written unless the whole batch is: a failed write is cut back.
   */
  private persistBatch(contents: readonly string[]): number {
    this.own();
    let prev = this.prev;
    const parts: string[] = [];
    let bytes = 0;
    for (const content of contents) {
      const { line, hash } = this.options.chain ? chainLine(content, prev) : { line: content, hash: prev };
      const text = `${line}\n`;
      const length = Buffer.byteLength(text);
      if (this.size + bytes > 0 && this.size + bytes + length > this.options.maxSize) {
        if (parts.length > 0) break; // the next batch starts in a fresh file
        this.rotate();
      }
      parts.push(text);
      bytes += length;
      prev = hash;
      if (parts.length >= 512) break;
    }
    const data = Buffer.from(parts.join(''));
    const fd = this.fd!;
    let done = 0;
    try {
      while (done < data.length) done += writeSync(fd, data, done);
      if (this.options.durability === 'fsync') fsyncSync(fd);
    } catch (error) {
      if (done > 0) {
        try {
          ftruncateSync(fd, this.size);
        } catch {
          /* the next open terminates the torn line instead */
        }
      }
      throw error;
    }
    this.size += data.length;
    this.prev = prev;
    this.counters.written += parts.length;
    return parts.length;
  }

  private persist(content: string): void {
    this.own();
    const { line, hash } = this.options.chain
      ? chainLine(content, this.prev)
      : { line: content, hash: this.prev };
    const text = `${line}\n`;
    const length = Buffer.byteLength(text);
    // Rotate before a record that would cross the cap: the cap is exact even under a burst.
    if (this.size > 0 && this.size + length > this.options.maxSize) this.rotate();
    const fd = this.fd!;
    let done = 0;
    try {
      // One write(2) of the string; a short write (rare on regular files) is finished from a buffer.
      done = writeSync(fd, text);
      if (done < length) {
        const bytes = Buffer.from(text);
        while (done < length) done += writeSync(fd, bytes, done);
      }
      if (this.options.durability === 'fsync') fsyncSync(fd);
    } catch (error) {
      // Never leave half a record behind: cut the file back to the last whole line.
      if (done > 0) {
        try {
          ftruncateSync(fd, this.size);
        } catch {
          /* the next open terminates the torn line instead */
        }
      }
      throw error;
    }
    this.size += length;
    this.prev = hash;
    this.counters.written++;
  }

  private rotate(): void {
    this.closeFd();
    try {
      shiftFiles(this.options.file, this.options.keep);
    } catch (error) {
      this.report(error, 'rotate');
      this.counters.failures++;
    }
    this.openFile();
    this.counters.rotations++;
    this.compressor?.schedule();
  }

  private enqueue(content: string): void {
    if (this.queue.length >= this.options.maxBuffered) {
      // Keep the oldest records: they are the evidence of what started an incident.
      this.counters.dropped++;
      this.report(new Error(`audit buffer full (${this.options.maxBuffered} records)`), 'dropped');
      return;
    }
    this.queue.push(content);
    this.counters.buffered = this.queue.length;
  }

  private fail(error: unknown, what: 'write' | 'open'): void {
    this.counters.failures++;
    this.failing = true;
    this.closeFd();
    this.report(error, what);
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.retryTimer || this.closed) return;
    const delay = this.retryDelay;
    this.retryDelay = Math.min(delay * 2, 30_000);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.closed) return;
      if (!this.flush() && !this.retryTimer) this.scheduleRetry();
    }, delay);
    this.retryTimer.unref();
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      if (!this.failing) this.flush();
    }).unref();
  }

  private report(error: unknown, what: 'write' | 'open' | 'rotate' | 'dropped'): void {
    this.options.onError(error, what, { ...this.counters });
  }

  private closeFd(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      /* already unusable */
    }
    this.fd = undefined;
  }
}

// Only when the current file is empty and the last rotated one is compressed (a restart right after a
// rotation): read it whole, once, at open, to continue the chain.
function lastGzipLine(file: string): string | undefined {
  try {
    const lines = zlib().gunzipSync(readFileSync(file)).toString('utf8').split('\n');
    lines.pop();
    return lines.at(-1) || undefined;
  } catch {
    return undefined;
  }
}
