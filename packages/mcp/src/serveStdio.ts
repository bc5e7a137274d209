import { createGateway, type Gateway, type GatewayOptions } from './createGateway.js';
import { DEFAULT_MAX_FRAME_BYTES, LineTransport } from './lineTransport.js';

export interface StdioStreams {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
}

/**
 * Serves one MCP client on stdio through a gateway until either side goes away, and resolves with why.
 * The client closing stdin ends the session: without that a gateway whose client has gone would keep its
 * child process alive forever.
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
  // Not the SDK's stdio server transport: it closes on a message over 10 MiB, ending the gateway.
  const transport = new LineTransport(
    streams.stdin,
    streams.stdout,
    options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES,
  );
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
