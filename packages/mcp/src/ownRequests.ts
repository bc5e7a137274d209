import { randomBytes } from 'node:crypto';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { RequestId, RpcResponse } from './jsonRpc.js';

interface Waiter {
  resolve(result: Record<string, unknown>): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Requests the gateway itself sends (a `tools/list` to prime tool classification, an `elicitation/create` to
 * ask the human). Their ids carry a random per-gateway prefix so they can never collide with the ids of the
 * requests the gateway relays, and their responses are consumed here, never relayed.
 */
export class OwnRequests {
  private readonly prefix = `toolgate-${randomBytes(6).toString('hex')}-`;
  private seq = 0;
  private readonly waiting = new Map<RequestId, Waiter>();

  send(
    to: Transport,
    method: string,
    params: Record<string, unknown>,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>> {
    const id = `${this.prefix}${++this.seq}`;
    return new Promise((resolve, reject) => {
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(
              () => this.fail(id, new Error(`${method} got no answer within ${timeoutMs} ms`)),
              timeoutMs,
            );
      timer?.unref();
      this.waiting.set(id, { resolve, reject, timer });
      to.send({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage).catch((error: unknown) =>
        this.fail(id, error instanceof Error ? error : new Error(String(error))),
      );
    });
  }

  /** Settles the request `response` answers; false when it answers no request of ours. */
  settle(response: RpcResponse): boolean {
    const waiter = this.waiting.get(response.id);
    if (!waiter) return false;
    this.waiting.delete(response.id);
    if (waiter.timer) clearTimeout(waiter.timer);
    if (response.error) waiter.reject(new Error(`${response.error.message} (code ${response.error.code})`));
    else waiter.resolve(response.result ?? {});
    return true;
  }

  failAll(error: Error): void {
    for (const id of [...this.waiting.keys()]) this.fail(id, error);
  }

  private fail(id: RequestId, error: Error): void {
    const waiter = this.waiting.get(id);
    if (!waiter) return;
    this.waiting.delete(id);
    if (waiter.timer) clearTimeout(waiter.timer);
    waiter.reject(error);
  }
}
