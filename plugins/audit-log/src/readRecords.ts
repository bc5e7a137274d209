import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { trailFiles } from './trailFiles.js';

export interface TrailLine {
  file: string;
  /** 1-based line number within `file`. */
  line: number;
  /** The line, or `''` when it is over the size limit (`oversize`). */
  text: string;
  /** Set when the line is longer than the limit: its length in bytes. It was skipped, never held in memory. */
  oversize?: number;
  /** The file's last line, without a newline after it: a write cut short (never acknowledged to its caller). */
  unterminated?: true;
}

/**
 * Longest line read as a record (16 MiB). Records this plugin writes are a few KiB (redaction bounds every
 * string); a longer line is foreign or corrupt. Without a bound a line past V8's string limit (~512 MiB)
 * threw a RangeError out of `audit verify`.
 */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/**
 * Streams the lines of one file, split on bytes: memory stays at one line (at most `maxLineBytes`) whatever
 * the file's size, and a longer line is reported (`oversize`) and skipped, not read into a string.
 */
export async function* readLines(file: string, maxLineBytes = MAX_LINE_BYTES): AsyncGenerator<TrailLine> {
  const raw = createReadStream(file);
  let input: Readable = raw;
  if (file.endsWith('.gz')) {
    const gunzip = createGunzip();
    raw.on('error', (error) => gunzip.destroy(error));
    input = raw.pipe(gunzip);
  }
  let n = 0;
  let parts: Buffer[] = [];
  let held = 0;
  // Bytes of the current line when it is over the limit (its start was dropped), else -1.
  let over = -1;
  const finish = (piece: Buffer): TrailLine | undefined => {
    n++;
    if (over >= 0 || held + piece.length > maxLineBytes) {
      const bytes = (over >= 0 ? over : held) + piece.length;
      parts = [];
      held = 0;
      over = -1;
      return { file, line: n, text: '', oversize: bytes };
    }
    let text = (parts.length === 0 ? piece : Buffer.concat([...parts, piece])).toString('utf8');
    parts = [];
    held = 0;
    if (text.endsWith('\r')) text = text.slice(0, -1);
    return text === '' ? undefined : { file, line: n, text };
  };
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      let start = 0;
      for (;;) {
        const nl = chunk.indexOf(10, start);
        if (nl === -1) {
          const rest = chunk.subarray(start);
          if (over >= 0) over += rest.length;
          else if (held + rest.length > maxLineBytes) {
            over = held + rest.length;
            parts = [];
            held = 0;
          } else if (rest.length > 0) {
            // A copy: the stream may reuse its buffer.
            parts.push(Buffer.from(rest));
            held += rest.length;
          }
          break;
        }
        const line = finish(chunk.subarray(start, nl));
        if (line) yield line;
        start = nl + 1;
      }
    }
    if (held > 0 || over >= 0) {
      // No newline after it: a record whose write was cut short (the writer was killed mid-write).
      const line = finish(Buffer.alloc(0));
      if (line) yield { ...line, unterminated: true };
    }
  } catch (error) {
    // A file rotated away between listing and reading is simply not there any more.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  } finally {
    input.destroy();
    raw.destroy();
  }
}

/** Every parsed record of a trail (rotated files first, oldest to newest); unparseable lines are counted. */
export async function* readRecords(
  file: string,
  counts: { invalid: number } = { invalid: 0 },
): AsyncGenerator<Record<string, unknown>> {
  for (const f of trailFiles(file)) {
    for await (const { text, oversize } of readLines(f)) {
      if (oversize !== undefined) {
        counts.invalid++;
        continue;
      }
      let record: unknown;
      try {
        record = JSON.parse(text);
      } catch {
        counts.invalid++;
        continue;
      }
      if (record !== null && typeof record === 'object' && !Array.isArray(record))
        yield record as Record<string, unknown>;
      else counts.invalid++;
    }
  }
}
