import { read, readSync } from 'node:fs';

/**
 * The bytes of a file descriptor as an async iterable of chunks, read with fs.read — for the hook's event on
 * fd 0. `process.stdin` (a net.Socket on a pipe) or a fs.ReadStream would load Node's stream modules, which
 * cost a hook call more than its decision; this reads the same bytes with neither. A descriptor left in
 * non-blocking mode (EAGAIN) is polled.
 *
 * `neverBlocks`: the caller knows a read of `fd` returns at once (a pipe opened O_NONBLOCK, a regular file).
 * It is then read on the main thread: the event is usually all there when the hook starts, and the first
 * fs.read would start libuv's thread pool (threads created) just to return it.
 */
export function fdChunks(fd: number, chunkSize = 64 * 1024, neverBlocks = false): AsyncIterable<Buffer> {
  return {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const buffer = Buffer.allocUnsafe(chunkSize);
        const n = await new Promise<number>((resolve, reject) => {
          const done = (error: NodeJS.ErrnoException | null, bytes: number) => {
            // Unref'd: polling alone keeps nothing alive (the reader's deadline does, until it answers).
            if (error?.code === 'EAGAIN') setTimeout(attempt, 2).unref();
            else if (error?.code === 'EOF') resolve(0);
            else if (error) reject(error);
            else resolve(bytes);
          };
          const attempt = () => {
            if (!neverBlocks) return read(fd, buffer, 0, chunkSize, null, done);
            let bytes: number;
            try {
              bytes = readSync(fd, buffer, 0, chunkSize, null);
            } catch (error) {
              return done(error as NodeJS.ErrnoException, 0);
            }
            done(null, bytes);
          };
          attempt();
        });
        if (n === 0) return;
        yield buffer.subarray(0, n);
      }
    },
  };
}
