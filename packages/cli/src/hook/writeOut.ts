import { writeSync } from 'node:fs';

/**
 * Writes all of `text` to a file descriptor synchronously. The hook answers through fds 1 and 2 directly:
 * `process.stdout` and `process.stderr` would load Node's net and tty modules, which cost a hook call more
 * than its decision. A closed pipe (EPIPE: the assistant stopped reading) ends the write quietly; a full
 * non-blocking pipe (EAGAIN) is retried.
 */
export function writeOut(fd: 1 | 2, text: string): void {
  let buffer = Buffer.from(text, 'utf8');
  while (buffer.length > 0) {
    try {
      const n = writeSync(fd, buffer);
      buffer = buffer.subarray(n);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN') continue;
      if (code === 'EPIPE') return;
      throw error;
    }
  }
}
