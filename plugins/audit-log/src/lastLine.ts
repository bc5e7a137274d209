import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

// Records are small (redaction bounds every string), so the last MiB always holds the last complete line.
const TAIL = 1 << 20;
const FIRST = 1 << 16;

export interface FileTail {
  /** The last complete (newline-terminated) line, if any. */
  line: string | undefined;
  /** False when the file ends with a torn line (a crash mid-write by some other writer). */
  endsWithNewline: boolean;
  size: number;
  /** Bytes after the last newline (a torn line), 0 when the file ends with one, -1 when more than was read. */
  tornBytes: number;
}

/** Reads only the end of a trail file: reopening a large trail costs one small read, at startup or recovery. */
export function lastLine(file: string): FileTail {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return { line: undefined, endsWithNewline: true, size: 0, tornBytes: 0 };
  }
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return { line: undefined, endsWithNewline: true, size, tornBytes: 0 };
    // Records are a few hundred bytes: 64 KiB nearly always holds the last whole line (re-read on every lock
    // taken after another writer appended); the full MiB only when it does not.
    for (let want = FIRST; ; want = TAIL) {
      const len = Math.min(size, want);
      const buf = Buffer.alloc(len);
      readSync(fd, buf, 0, len, size - len);
      const text = buf.toString('utf8');
      const lines = text.split('\n');
      lines.pop(); // '' after the final newline, or the torn tail
      if (len < size) lines.shift(); // may start mid-line
      const line = lines.at(-1) || undefined;
      const nl = buf.lastIndexOf(10);
      if ((line !== undefined && nl !== -1) || len === size || want === TAIL)
        return {
          line,
          endsWithNewline: text.endsWith('\n'),
          size,
          tornBytes: nl !== -1 ? len - nl - 1 : len === size ? len : -1,
        };
    }
  } finally {
    closeSync(fd);
  }
}
