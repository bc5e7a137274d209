/** How long a hook waits for its event on stdin by default (ms); `TOOLGATE_HOOK_STDIN_TIMEOUT_MS` overrides. */
export const DEFAULT_STDIN_TIMEOUT_MS = 10_000;

/** Stdin did not close in time: the hook must answer (deny) before the assistant's own timeout kills it. */
export class StdinTimeoutError extends Error {
  constructor(ms: number, bytes: number) {
    super(
      `no complete hook event on stdin within ${ms} ms (${bytes} bytes read, stdin still open); the call is denied`,
    );
    this.name = 'StdinTimeoutError';
  }
}

/** The stdin timeout from the environment: a positive integer of ms, else the default. */
export function stdinTimeoutMs(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env.TOOLGATE_HOOK_STDIN_TIMEOUT_MS;
  const n = raw === undefined ? Number.NaN : Number(raw);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_STDIN_TIMEOUT_MS;
}

/**
 * All of a hook's stdin, bounded in size and in time. A host whose stdin never closes must not hang the
 * hook: Claude Code treats a hook killed by its timeout as a non-blocking error and runs the tool, so the
 * hook fails closed itself first — it stops reading (so the process can exit) and rejects.
 */
export function readHookInput(
  stream: NodeJS.ReadableStream | AsyncIterable<Buffer | string>,
  timeoutMs: number,
  maxBytes = 16 * 1024 * 1024,
): Promise<string> {
  // The hook's own fast path reads fd 0 as an async iterable of chunks (fdChunks), not an event emitter.
  if (typeof (stream as { on?: unknown }).on !== 'function')
    return readIterable(stream as AsyncIterable<Buffer | string>, timeoutMs, maxBytes);
  const events = stream as NodeJS.ReadableStream;
  return readEvents(events, timeoutMs, maxBytes);
}

/** The same bounds over an async iterable: each chunk races the one deadline. */
async function readIterable(
  chunksOf: AsyncIterable<Buffer | string>,
  timeoutMs: number,
  maxBytes: number,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StdinTimeoutError(timeoutMs, size)), timeoutMs);
  });
  const it = chunksOf[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await Promise.race([it.next(), deadline]);
      if (next.done) break;
      const buffer = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
      size += buffer.length;
      if (size > maxBytes) throw new Error(`hook event on stdin exceeds ${maxBytes} bytes`);
      chunks.push(buffer);
    }
  } finally {
    clearTimeout(timer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function readEvents(stream: NodeJS.ReadableStream, timeoutMs: number, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (error?: Error) => {
      clearTimeout(timer);
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      if (error) {
        // Stop reading for good: a still-open stdin would keep the process alive after it answered.
        (stream as { destroy?: () => void }).destroy?.();
        reject(error);
      } else resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const onData = (chunk: Buffer | string) => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buffer.length;
      if (size > maxBytes) return done(new Error(`hook event on stdin exceeds ${maxBytes} bytes`));
      chunks.push(buffer);
    };
    const onEnd = () => done();
    const onError = (error: Error) => done(error);
    const timer = setTimeout(() => done(new StdinTimeoutError(timeoutMs, size)), timeoutMs);
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', onError);
  });
}
