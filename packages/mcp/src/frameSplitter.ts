/** What one newline-delimited frame turned out to be. */
export type Frame = { kind: 'line'; text: string } | { kind: 'oversize'; bytes: number; head: string };

/** Bytes of an oversize frame kept to find its `id` (an error reply needs one). */
const HEAD_BYTES = 4096;

/**
 * Splits a byte stream into newline-delimited frames (MCP's stdio framing) with a bound: a frame longer than
 * `maxBytes` is not accumulated — its first bytes are kept, the rest counted and dropped up to its newline —
 * so one huge message costs a bounded amount of memory and does not end the stream. (The SDK's ReadBuffer
 * throws past 10 MiB and its transports then close: a 12 MiB frame ended the gateway.)
 */
export class FrameSplitter {
  private parts: Buffer[] = [];
  private held = 0;
  /** Size so far of a frame already over the limit, else -1. */
  private over = -1;
  private head = '';

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer): Frame[] {
    const out: Frame[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      const end = nl === -1 ? chunk.length : nl;
      if (nl !== -1 && this.held === 0 && this.over < 0 && end - start <= this.maxBytes) {
        // The common case, a whole line inside one chunk with nothing held: decoded straight from the chunk
        // (no copy of the piece, no concat).
        out.push({
          kind: 'line',
          text: chunk.toString('utf8', start, chunk[end - 1] === 13 ? end - 1 : end),
        });
        start = nl + 1;
        continue;
      }
      const piece = chunk.subarray(start, end);
      if (this.over >= 0) this.over += piece.length;
      else if (this.held + piece.length > this.maxBytes) {
        this.head = Buffer.concat([...this.parts, piece.subarray(0, HEAD_BYTES)]).toString(
          'utf8',
          0,
          HEAD_BYTES,
        );
        this.over = this.held + piece.length;
        this.parts = [];
        this.held = 0;
      } else if (piece.length > 0) {
        this.parts.push(Buffer.from(piece)); // a copy: the stream may reuse its buffer
        this.held += piece.length;
      }
      if (nl === -1) return out;
      out.push(this.take());
      start = nl + 1;
    }
  }

  private take(): Frame {
    if (this.over >= 0) {
      const frame: Frame = { kind: 'oversize', bytes: this.over, head: this.head };
      this.over = -1;
      this.head = '';
      return frame;
    }
    let text = Buffer.concat(this.parts).toString('utf8');
    this.parts = [];
    this.held = 0;
    if (text.endsWith('\r')) text = text.slice(0, -1);
    return { kind: 'line', text };
  }
}

/** The `id` of a JSON-RPC message read from its first bytes (for an error reply to a frame not parsed). */
export function idFromHead(head: string): string | number | undefined {
  const m = /"id"\s*:\s*(?:"((?:[^"\\]|\\.){0,200})"|(-?\d{1,16}))/.exec(head);
  if (!m) return undefined;
  if (m[2] !== undefined) return Number(m[2]);
  try {
    return JSON.parse(`"${m[1]}"`) as string;
  } catch {
    return undefined;
  }
}
