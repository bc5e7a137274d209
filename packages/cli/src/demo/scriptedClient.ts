import type { JSONRPCMessage, Transport } from '@toolgate/mcp';

type Message = Record<string, unknown>;
type Handler = (params: Message) => Message | Promise<Message>;

/**
 * Two in-process transports wired to each other: the demo's scripted client on one end, the gateway on the
 * other. Delivery is asynchronous (a microtask), like a real pipe.
 */
export function linkedTransports(): [Transport, Transport] {
  const make = (): Transport & { peer?: Transport; open: boolean } => ({
    open: true,
    async start() {},
    async send(message: JSONRPCMessage) {
      const peer = this.peer;
      if (!this.open || !peer) throw new Error('transport closed');
      queueMicrotask(() => peer.onmessage?.(message));
    },
    async close() {
      if (!this.open) return;
      this.open = false;
      this.onclose?.();
      await this.peer?.close();
    },
  });
  const a = make();
  const b = make();
  a.peer = b;
  b.peer = a;
  return [a, b];
}

/** A minimal MCP client speaking raw JSON-RPC: enough for a scripted session, and it answers elicitation. */
export class ScriptedClient {
  private next = 1;
  private readonly waiting = new Map<number, { resolve(m: Message): void }>();
  private readonly handlers = new Map<string, Handler>();

  constructor(private readonly transport: Transport) {
    transport.onmessage = (message) => void this.receive(message as unknown as Message);
  }

  start(): Promise<void> {
    return this.transport.start();
  }

  on(method: string, handler: Handler): void {
    this.handlers.set(method, handler);
  }

  async request(method: string, params: Message = {}): Promise<Message> {
    const id = this.next++;
    const answer = new Promise<Message>((resolve) => this.waiting.set(id, { resolve }));
    await this.transport.send({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage);
    return answer;
  }

  async notify(method: string, params: Message = {}): Promise<void> {
    await this.transport.send({ jsonrpc: '2.0', method, params } as JSONRPCMessage);
  }

  async initialize(capabilities: Message): Promise<Message> {
    const result = await this.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities,
      clientInfo: { name: 'toolgate-demo', version: '1.0.0' },
    });
    await this.notify('notifications/initialized');
    return result;
  }

  private async receive(message: Message): Promise<void> {
    if ('method' in message && 'id' in message) {
      const handler = this.handlers.get(String(message.method));
      const reply = handler
        ? { jsonrpc: '2.0', id: message.id, result: await handler((message.params ?? {}) as Message) }
        : { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'method not found' } };
      await this.transport.send(reply as JSONRPCMessage);
      return;
    }
    if ('id' in message) {
      const waiter = this.waiting.get(message.id as number);
      this.waiting.delete(message.id as number);
      waiter?.resolve(message);
    }
  }
}
