import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { parseMessage } from '../src/parseMessage.js';

const RT = 'io.modelcontextprotocol/related-task';

// Every value here is given to both the SDK's schema and parseMessage: they must agree on whether it is a
// message, and on the message (zod strips what a plain z.object does not declare).
const corpus: unknown[] = [
  null,
  1,
  'x',
  [],
  [{ jsonrpc: '2.0', method: 'a' }],
  {},
  { jsonrpc: '2.0' },
  { jsonrpc: '1.0', id: 1, method: 'a' },
  { jsonrpc: 2, id: 1, method: 'a' },
  // requests
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: { path: '/a' } } },
  { jsonrpc: '2.0', id: 'abc', method: 'ping' },
  { jsonrpc: '2.0', id: 0, method: 'ping', params: {} },
  { jsonrpc: '2.0', id: -5, method: 'ping' },
  { jsonrpc: '2.0', id: 1.5, method: 'ping' },
  { jsonrpc: '2.0', id: 2 ** 53, method: 'ping' },
  { jsonrpc: '2.0', id: 2 ** 53 - 1, method: 'ping' },
  { jsonrpc: '2.0', id: null, method: 'ping' },
  { jsonrpc: '2.0', id: true, method: 'ping' },
  { jsonrpc: '2.0', id: {}, method: 'ping' },
  { jsonrpc: '2.0', id: 1, method: 5 },
  { jsonrpc: '2.0', id: 1, method: 'a', params: [] },
  { jsonrpc: '2.0', id: 1, method: 'a', params: null },
  { jsonrpc: '2.0', id: 1, method: 'a', params: 'x' },
  { jsonrpc: '2.0', id: 1, method: 'a', extra: 1 },
  { jsonrpc: '2.0', id: 1, method: 'a', result: {} },
  { jsonrpc: '2.0', id: 1, method: 'a', params: { _meta: { progressToken: 't' }, x: 1 } },
  { jsonrpc: '2.0', id: 1, method: 'a', params: { _meta: { progressToken: 7, other: [1] } } },
  { jsonrpc: '2.0', id: 1, method: 'a', params: { _meta: { progressToken: 7.5 } } },
  { jsonrpc: '2.0', id: 1, method: 'a', params: { _meta: { progressToken: null } } },
  { jsonrpc: '2.0', id: 1, method: 'a', params: { _meta: null } },
  { jsonrpc: '2.0', id: 1, method: 'a', params: { _meta: [] } },
  { jsonrpc: '2.0', id: 1, method: 'a', params: { _meta: { [RT]: { taskId: 't' } } } },
  { jsonrpc: '2.0', id: 1, method: 'a', params: { _meta: { [RT]: { taskId: 't', more: 1 } } } },
  { jsonrpc: '2.0', id: 1, method: 'a', params: { _meta: { [RT]: { taskId: 1 } } } },
  { jsonrpc: '2.0', id: 1, method: 'a', params: { _meta: { [RT]: 'x' } } },
  // notifications
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 2 } },
  { jsonrpc: '2.0', method: 'n', params: { _meta: { progressToken: {} } } },
  { jsonrpc: '2.0', method: 'n', extra: true },
  { jsonrpc: '2.0', method: 'n', params: 3 },
  // results
  { jsonrpc: '2.0', id: 1, result: {} },
  { jsonrpc: '2.0', id: 'q', result: { content: [{ type: 'text', text: 'hi' }], isError: false } },
  { jsonrpc: '2.0', id: 1, result: { _meta: { progressToken: 'x' } } },
  { jsonrpc: '2.0', id: 1, result: { _meta: { progressToken: false } } },
  { jsonrpc: '2.0', id: 1, result: { _meta: { [RT]: { taskId: 't', x: 2 } }, y: 1 } },
  { jsonrpc: '2.0', id: 1, result: [] },
  { jsonrpc: '2.0', id: 1, result: null },
  { jsonrpc: '2.0', id: 1, result: 'ok' },
  { jsonrpc: '2.0', result: {} },
  { jsonrpc: '2.0', id: 1.1, result: {} },
  { jsonrpc: '2.0', id: 1, result: {}, extra: 1 },
  { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'x' } },
  // errors
  { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'gone' } },
  { jsonrpc: '2.0', error: { code: -32700, message: 'parse' } },
  { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'x', data: { a: 1 } } },
  { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'x', data: null } },
  { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'x', stack: 'y' } },
  { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'x', data: 1, stack: 'y' } },
  { jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'x' } },
  { jsonrpc: '2.0', id: 1, error: { code: '1', message: 'x' } },
  { jsonrpc: '2.0', id: 1, error: { code: 1 } },
  { jsonrpc: '2.0', id: 1, error: { code: 1, message: 2 } },
  { jsonrpc: '2.0', id: 1, error: 'boom' },
  { jsonrpc: '2.0', id: 1, error: null },
  { jsonrpc: '2.0', id: 1, error: [] },
  { jsonrpc: '2.0', id: null, error: { code: 1, message: 'x' } },
  { jsonrpc: '2.0', id: 1, error: { code: 1, message: 'x' }, extra: 1 },
  { jsonrpc: '2.0', id: 1 },
];

describe('parseMessage agrees with the SDK JSONRPCMessageSchema', () => {
  it.each(corpus.map((v) => [JSON.stringify(v), v]))('%s', (_, value) => {
    const sdk = JSONRPCMessageSchema.safeParse(value);
    const ours = parseMessage(value);
    expect(ours !== undefined).toBe(sdk.success);
    if (sdk.success) expect(ours).toEqual(sdk.data);
  });

  it('returns the parsed object itself when nothing is stripped (so its original text can be relayed)', () => {
    const message = { jsonrpc: '2.0', id: 1, result: { content: [] } };
    expect(parseMessage(message)).toBe(message);
    const stripped = { jsonrpc: '2.0', id: 1, error: { code: 1, message: 'x', stack: 'y' } };
    expect(parseMessage(stripped)).not.toBe(stripped);
  });
});
