import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createGateway, type Gateway, type GatewayOptions } from './createGateway.js';

export interface StdioStreams {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
}

/**
 * Serves one MCP client on stdio through a gateway until either side goes away, and resolves with why.
 * The SDK's stdio server transport does not notice the client closing stdin, so that is watched here:
 * without it a gateway whose client has gone would keep its child process alive forever.
 *
 * @example
 * ```ts
 * import { serveStdio } from '@toolgate/mcp';
 * const gateway = await serveStdio({ guard, ctx, upstream: { command: 'node', args: ['server.js'] } });
 * process.exitCode = gateway.closedBy === 'upstream' ? 1 : 0;
 * ```
 */
export async function serveStdio(
  options: GatewayOptions,
  streams: StdioStreams = { stdin: process.stdin, stdout: process.stdout },
): Promise<Gateway> {
  const gateway = createGateway(options);
  const transport = new StdioServerTransport(streams.stdin as never, streams.stdout as never);
  // stdin ending is the client hanging up; a signal is this process being told to stop.
  const hangUp = () => void transport.close();
  const stop = () => void gateway.close();
  streams.stdin.once('end', hangUp);
  streams.stdin.once('close', hangUp);
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.once(signal, stop);
  try {
    await gateway.connect(transport);
    await gateway.closed;
  } finally {
    streams.stdin.off('end', hangUp);
    streams.stdin.off('close', hangUp);
    for (const signal of signals) process.off(signal, stop);
  }
  return gateway;
}
