import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { createGateway, type Gateway, type GatewayOptions } from '../../src/index.js';

export interface Connected {
  client: Client;
  gateway: Gateway;
  errors: Error[];
  close(): Promise<void>;
}

/** The SDK's own Client, connected to a gateway in front of `upstream`. */
export async function connectThroughGateway(
  options: Omit<GatewayOptions, 'onError'>,
  clientCapabilities: Record<string, unknown> = {},
): Promise<Connected> {
  const errors: Error[] = [];
  const gateway = createGateway({ ...options, onError: (e) => errors.push(e) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await gateway.connect(serverSide);
  const client = new Client(
    { name: 'toolgate-test', version: '1.0.0' },
    { capabilities: clientCapabilities },
  );
  await client.connect(clientSide as Transport);
  return {
    client,
    gateway,
    errors,
    close: async () => {
      await client.close();
      await gateway.close();
    },
  };
}

export function textOf(result: { content?: unknown }): string {
  const content = result.content as Array<{ type: string; text?: string }> | undefined;
  return content?.map((c) => c.text ?? '').join('') ?? '';
}
