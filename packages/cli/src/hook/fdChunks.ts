import { read } from 'node:fs';

/**
 * The bytes of a file descriptor as an async iterable of chunks, read with fs.read — for the hook's event on
 * fd 0. `process.stdin` (a net.Socket on a pipe) or a fs.ReadStream would load Node's stream modules, which
 * cost a hook call more than its decision; this reads the same bytes with neither. A descriptor left in
 * non-blocking mode (EAGAIN) is polled.
 */
export function fdChunks(fd: number, chunkSize = 64 * 1024): AsyncIterable<Buffer> {
  return {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const buffer = Buffer.allocUnsafe(chunkSize);
        const n = await new Promise<number>((resolve, reject) => {
          const attempt = () =>
            read(fd, buffer, 0, chunkSize, null, (error, bytes) => {
              // Unref'd: polling alone keeps nothing alive (the reader's deadline does, until it answers).
              if (error?.code === 'EAGAIN') setTimeout(attempt, 2).unref();
              else if (error?.code === 'EOF') resolve(0);
              else if (error) reject(error);
              else resolve(bytes);
            });
          attempt();
        });
        if (n === 0) return;
        yield buffer.subarray(0, n);
      }
    },
  };
}
