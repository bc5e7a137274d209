import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { LineTransport } from '../src/lineTransport.js';

function pair(keepsText: boolean) {
  const input = new PassThrough();
  const output = new PassThrough();
  const t = new LineTransport(input, output);
  t.keepsText = keepsText;
  const got: JSONRPCMessage[] = [];
  t.onmessage = (m) => got.push(m);
  return { input, output, t, got };
}
const written = (s: PassThrough) => (s.read() as Buffer | null)?.toString('utf8') ?? '';

describe('LineTransport relays', () => {
  // The server's line, with its own spacing: relayed unchanged it is written as it came (no second
  // JSON.stringify of a large result).
  const line = '{ "jsonrpc": "2.0", "id": 7, "result": { "content": [ { "type": "text", "text": "hé" } ] } }';

  it('a message kept with its text is written as that text when sent on unchanged', async () => {
    const from = pair(true);
    const to = pair(false);
    await from.t.start();
    from.input.write(`${line}\r\n`);
    await new Promise((r) => setImmediate(r));
    expect(from.got).toHaveLength(1);
    await to.t.send(from.got[0]!);
    expect(written(to.output)).toBe(`${line}\n`);
    // A changed message (a new object) is serialised from the object.
    await to.t.send({ ...from.got[0]!, id: 8 } as JSONRPCMessage);
    expect(written(to.output)).toBe(`${JSON.stringify({ ...JSON.parse(line), id: 8 })}\n`);
  });

  it('without keepsText (the client side) a message is always serialised from the object the guard saw', async () => {
    const from = pair(false);
    const to = pair(false);
    await from.t.start();
    from.input.write(`${line}\n`);
    await new Promise((r) => setImmediate(r));
    await to.t.send(from.got[0]!);
    expect(written(to.output)).toBe(`${JSON.stringify(JSON.parse(line))}\n`);
  });

  it('a message the schema strips is never written as its original text', async () => {
    const from = pair(true);
    const to = pair(false);
    await from.t.start();
    from.input.write('{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"x","stack":"secret"}}\n');
    await new Promise((r) => setImmediate(r));
    await to.t.send(from.got[0]!);
    expect(written(to.output)).toBe('{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"x"}}\n');
  });

  it('splits lines across chunks, several per chunk, and multi-byte characters split between chunks', async () => {
    const from = pair(false);
    await from.t.start();
    const a = Buffer.from(
      '{"jsonrpc":"2.0","method":"a","params":{"t":"é"}}\n{"jsonrpc":"2.0","method":"b"}\n{"jsonrpc"',
    );
    const cut = a.indexOf(0xa9); // inside "é"
    from.input.write(a.subarray(0, cut));
    from.input.write(a.subarray(cut));
    from.input.write(':"2.0","method":"c"}\n');
    await new Promise((r) => setImmediate(r));
    expect(from.got.map((m) => (m as { method: string }).method)).toEqual(['a', 'b', 'c']);
    expect((from.got[0] as { params: { t: string } }).params.t).toBe('é');
  });
});
