// A small MCP server over stdio that offers desktop-commander's terminal tools by their real schemas
// (wonderwhy-er/DesktopCommanderMCP src/tools/schemas.ts) and an undeclared `frobnicate {cmd}`, but runs
// nothing: it appends every call it receives to the file named by argv[2], so a test can prove a denied
// command never reached the server.
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const log = process.argv[2];
const tools = [
  {
    name: 'start_process',
    inputSchema: {
      type: 'object',
      properties: { command: { type: 'string' }, timeout_ms: { type: 'number' }, shell: { type: 'string' } },
      required: ['command', 'timeout_ms'],
    },
  },
  {
    name: 'interact_with_process',
    inputSchema: {
      type: 'object',
      properties: { pid: { type: 'number' }, input: { type: 'string' } },
      required: ['pid', 'input'],
    },
  },
  { name: 'frobnicate', inputSchema: { type: 'object', properties: { cmd: { type: 'string' } } } },
];

function reply(id, result) {
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, result })}\n`);
}

createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() === '') return;
  const msg = JSON.parse(line);
  if (msg.id === undefined) return;
  if (msg.method === 'initialize')
    reply(msg.id, {
      protocolVersion: msg.params?.protocolVersion ?? '2025-06-18',
      capabilities: { tools: {} },
      serverInfo: { name: 'recording-shell', version: '1.0.0' },
    });
  else if (msg.method === 'tools/list') reply(msg.id, { tools });
  else if (msg.method === 'tools/call') {
    appendFileSync(log, `${JSON.stringify(msg.params)}\n`);
    reply(msg.id, { content: [{ type: 'text', text: `received ${msg.params.name}` }] });
  } else reply(msg.id, {});
});
