import { type ChildProcess, spawn } from 'node:child_process';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LineTransport, type MalformedFrame } from './lineTransport.js';

export interface ChildUpstreamOptions {
  command: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
  stderr: 'inherit' | 'pipe' | 'ignore';
  maxFrameBytes: number;
}

const settle = (child: ChildProcess, ms: number) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(resolve, ms);
    timer.unref();
    child.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/**
 * The real server as a child process speaking MCP on its stdio, through a `LineTransport` (a frame limit,
 * malformed output reported per frame, never a silent stop). Closing ends its stdin, then SIGTERM, then
 * SIGKILL, as the SDK's client transport does.
 */
export class ChildUpstream implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  onmalformed?: (frame: MalformedFrame) => void;
  private child: ChildProcess | undefined;
  private lines: LineTransport | undefined;
  private closed = false;

  constructor(private readonly options: ChildUpstreamOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    const o = this.options;
    return new Promise((resolve, reject) => {
      const child = spawn(o.command, o.args, {
        env: { ...getDefaultEnvironment(), ...(o.env ?? {}) },
        stdio: ['pipe', 'pipe', o.stderr],
        shell: false,
        ...(o.cwd ? { cwd: o.cwd } : {}),
      });
      this.child = child;
      const lines = new LineTransport(child.stdout!, child.stdin!, o.maxFrameBytes);
      lines.keepsText = true;
      this.lines = lines;
      lines.onmessage = (m) => this.onmessage?.(m);
      lines.onerror = (e) => this.onerror?.(e);
      lines.onmalformed = (f) => this.onmalformed?.(f);
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => {
        void lines.start().then(resolve, reject);
      });
      child.once('close', () => {
        if (this.closed) return;
        this.closed = true;
        void lines.close();
        this.onclose?.();
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (!this.lines || this.closed) return Promise.reject(new Error('the upstream server is not running'));
    return this.lines.send(message);
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child || this.closed) return;
    this.closed = true;
    try {
      child.stdin?.end();
    } catch {
      /* already gone */
    }
    await settle(child, 2_000);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await settle(child, 2_000);
    }
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await this.lines?.close();
    this.onclose?.();
  }
}
