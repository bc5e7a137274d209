import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import type { JSONRPCMessage, Transport } from '@toolgate/mcp';

/** MCP's stdio framing (one JSON message per line) over a child process's stdin/stdout. */
export function childTransport(child: ChildProcessWithoutNullStreams): Transport {
  let buffered = '';
  const transport: Transport = {
    async start() {
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        buffered += chunk;
        let at = buffered.indexOf('\n');
        while (at >= 0) {
          const line = buffered.slice(0, at);
          buffered = buffered.slice(at + 1);
          if (line.trim() !== '') transport.onmessage?.(JSON.parse(line) as JSONRPCMessage);
          at = buffered.indexOf('\n');
        }
      });
      child.once('close', () => transport.onclose?.());
    },
    async send(message) {
      child.stdin.write(`${JSON.stringify(message)}\n`);
    },
    async close() {
      child.stdin.end();
    },
  };
  return transport;
}
