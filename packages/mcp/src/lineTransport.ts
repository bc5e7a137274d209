import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { FrameSplitter, idFromHead } from './frameSplitter.js';
import type { RequestId } from './jsonRpc.js';
import { parseMessage } from './parseMessage.js';

/**
 * The line each message was read from, for transports that keep it (`keepsText`): a message relayed unchanged
 * (the same object) is written as the bytes it arrived as instead of being serialised again — for a large
 * tools/call result that is most of the relay's cost. Weak: a message nobody holds is gone with its text.
 */
const lineOf = new WeakMap<object, string>();

/** Default largest frame (32 MiB): a 12 MiB file read passes; a runaway stream does not fill memory. */
export const DEFAULT_MAX_FRAME_BYTES = 32 * 1024 * 1024;

/** A frame that is not a JSON-RPC message: too long, not JSON, or not a message. `id` when it could be read. */
export interface MalformedFrame {
  reason: string;
  id?: RequestId;
}

/**
 * MCP over newline-delimited JSON on a pair of streams (a child's stdio, or this process's), with a frame
 * limit. Unlike the SDK's stdio transports it never closes itself over one bad frame: a frame that is too
 * long or not a JSON-RPC message is reported through `onmalformed` (with its `id` when one can be read, so
 * the gateway can answer it with an error instead of leaving someone to wait) and the stream goes on.
 */
export class LineTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  onmalformed?: (frame: MalformedFrame) => void;
  /**
   * Remember each message's line so that a `LineTransport` relaying the same, unchanged message object writes
   * that line as it is. The gateway sets it for the server's side only: what the server receives is always
   * serialised from the object the guard judged, never the client's own bytes (no parser differential).
   */
  keepsText = false;
  private readonly splitter: FrameSplitter;
  private started = false;
  private closed = false;

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
    readonly maxFrameBytes = DEFAULT_MAX_FRAME_BYTES,
    private readonly onClose: () => Promise<void> | void = () => {},
  ) {
    this.splitter = new FrameSplitter(maxFrameBytes);
  }

  private readonly onData = (chunk: Buffer | string) => {
    const frames = this.splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    for (const frame of frames) {
      if (frame.kind === 'oversize') {
        const id = idFromHead(frame.head);
        this.malformed({
          reason: `a message of ${frame.bytes} bytes exceeds the frame limit of ${this.maxFrameBytes} bytes`,
          ...(id !== undefined ? { id } : {}),
        });
        continue;
      }
      if (frame.text.trim() === '') continue;
      let json: unknown;
      try {
        json = JSON.parse(frame.text);
      } catch {
        this.malformed({ reason: `a line that is not JSON: ${preview(frame.text)}` });
        continue;
      }
      const message = parseMessage(json);
      if (message === undefined) {
        const id = (json as { id?: unknown } | null)?.id;
        this.malformed({
          reason: `a line that is not a JSON-RPC message: ${preview(frame.text)}`,
          ...(typeof id === 'string' || typeof id === 'number' ? { id } : {}),
        });
        continue;
      }
      // Only when nothing was stripped: the text is then exactly this message.
      if (this.keepsText && message === json) lineOf.set(message, frame.text);
      try {
        this.onmessage?.(message);
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      }
    }
  };

  private readonly onStreamError = (error: Error) => this.onerror?.(error);
  private readonly onEnd = () => void this.close();

  private malformed(frame: MalformedFrame): void {
    this.onerror?.(new Error(`malformed MCP message: ${frame.reason}`));
    this.onmalformed?.(frame);
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('LineTransport already started');
    this.started = true;
    // Closed before it started (the server died while the gateway was connecting): never read.
    if (this.closed) return;
    this.input.on('data', this.onData);
    this.input.on('error', this.onStreamError);
    this.input.on('end', this.onEnd);
    this.output.on('error', this.onStreamError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the transport is closed'));
    return new Promise((resolve, reject) => {
      const ok = this.output.write(`${lineOf.get(message) ?? JSON.stringify(message)}\n`, (error) => {
        if (error) reject(error);
      });
      if (ok) resolve();
      else this.output.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('error', this.onStreamError);
    this.input.off('end', this.onEnd);
    // Nobody reads any more: a paused stdin lets the process exit.
    if (this.input.listenerCount('data') === 0) this.input.pause();
    await this.onClose();
    this.onclose?.();
  }
}

function preview(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);
}
