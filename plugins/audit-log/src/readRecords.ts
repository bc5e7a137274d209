import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { trailFiles } from './trailFiles.js';

export interface TrailLine {
  file: string;
  /** 1-based line number within `file`. */
  line: number;
  text: string;
}

/** Streams the lines of one file; memory stays at one line whatever the file's size. */
export async function* readLines(file: string): AsyncGenerator<TrailLine> {
  const raw = createReadStream(file);
  let input: Readable = raw;
  if (file.endsWith('.gz')) {
    const gunzip = createGunzip();
    raw.on('error', (error) => gunzip.destroy(error));
    input = raw.pipe(gunzip);
  }
  input.setEncoding('utf8');
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let n = 0;
  try {
    for await (const text of lines) {
      n++;
      if (text !== '') yield { file, line: n, text };
    }
  } catch (error) {
    // A file rotated away between listing and reading is simply not there any more.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  } finally {
    lines.close();
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
    for await (const { text } of readLines(f)) {
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
