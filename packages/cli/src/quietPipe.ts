/**
 * `toolgate … | head -1`: once the reader has gone, every further write to stdout fails with EPIPE, emitted
 * as an 'error' event that, unhandled, crashes with a stack trace. A closed pipe is the reader saying "enough":
 * stop quietly with the exit code so far, as `cat` and `grep` do. Any other stream error is still loud.
 */
export function exitQuietlyOnClosedPipe(
  streams: readonly NodeJS.WriteStream[] = [process.stdout, process.stderr],
): void {
  for (const stream of streams) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
    });
  }
}
