import { describe, expect, it } from 'vitest';
import {
  BodyTracker,
  clientResponseHead,
  parseRequestHead,
  requestFraming,
  upstreamHead,
} from '../src/network/httpHead.js';

// The proxy's reading of HTTP/1.1 (src/network/httpHead.ts) on its own: where a body ends must not depend on
// how the bytes were split into reads (a client chooses the split).

/** How many bytes of `bytes` the body takes, fed in pieces of `size`. */
function consumed(tracker: BodyTracker, bytes: Buffer, size: number): number {
  let n = 0;
  for (let i = 0; i < bytes.length && !tracker.done; i += size)
    n += tracker.take(bytes.subarray(i, i + size));
  return n;
}

describe('BodyTracker', () => {
  const chunked = Buffer.from(
    '4\r\nwiki\r\n5;name=v\r\npedia\r\n0\r\nExpires: never\r\n\r\nGET /next HTTP/1.1\r\n\r\n',
  );
  const bodyLength = chunked.indexOf('GET /next');

  it('finds the end of a chunked body (extensions, trailers) the same whatever the split', () => {
    for (let size = 1; size <= chunked.length; size++) {
      const t = new BodyTracker({ kind: 'chunked' });
      expect(consumed(t, chunked, size)).toBe(bodyLength);
      expect(t.done).toBe(true);
    }
  });

  it('a Content-Length body: exactly that many bytes, whatever the split', () => {
    const bytes = Buffer.from('0123456789extra');
    for (let size = 1; size <= bytes.length; size++) {
      const t = new BodyTracker({ kind: 'length', length: 10 });
      expect(consumed(t, bytes, size)).toBe(10);
      expect(t.done).toBe(true);
    }
  });

  it('refuses what a server could read otherwise', () => {
    const bad = [
      'zz\r\nhello\r\n',
      '5\nhello\r\n',
      '5\r\nhelloXX',
      '5 5\r\nhello\r\n',
      '-1\r\n',
      `${'f'.repeat(13)}\r\n`,
    ];
    for (const text of bad)
      expect(() => new BodyTracker({ kind: 'chunked' }).take(Buffer.from(text)), text).toThrow();
  });
});

describe('request heads', () => {
  it('parses the request line and fields; refuses what is not HTTP/1.x', () => {
    const head = parseRequestHead(
      '\r\nGET http://a.test/x HTTP/1.1\r\nHost: a.test\r\nX-A:  spaced  \r\n\r\n',
    );
    expect(head).toEqual({
      ok: true,
      value: {
        method: 'GET',
        target: 'http://a.test/x',
        version: '1.1',
        headers: [
          ['Host', 'a.test'],
          ['X-A', 'spaced'],
        ],
      },
    });
    for (const text of [
      'GET http://a.test/ HTTP/2.0\r\n\r\n',
      'GET  http://a.test/ HTTP/1.1\r\n\r\n',
      'G(T / HTTP/1.1\r\n\r\n',
    ])
      expect(parseRequestHead(text).ok, text).toBe(false);
  });

  it('framing: one Content-Length value (repeats must agree), chunked only, never both', () => {
    const framing = (headers: string) =>
      requestFraming(
        (parseRequestHead(`POST http://a.test/ HTTP/1.1\r\n${headers}\r\n`) as { value: never }).value,
      );
    expect(framing('Content-Length: 4\r\nContent-Length: 4\r\n')).toEqual({
      ok: true,
      value: { kind: 'length', length: 4 },
    });
    expect(framing('Content-Length: 4, 4\r\n')).toEqual({ ok: true, value: { kind: 'length', length: 4 } });
    expect(framing('Transfer-Encoding: Chunked\r\n')).toEqual({ ok: true, value: { kind: 'chunked' } });
    expect(framing('')).toEqual({ ok: true, value: { kind: 'none' } });
    for (const h of [
      'Content-Length: 4, 5\r\n',
      'Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n',
      'Transfer-Encoding: identity\r\n',
    ])
      expect(framing(h).ok, h).toBe(false);
  });

  it('the head sent upstream: origin form, the judged Host, no hop-by-hop headers, the framing once, Connection: close', () => {
    const head = (
      parseRequestHead(
        'POST http://a.test:8080/p?q HTTP/1.1\r\nHost: evil.test\r\nProxy-Authorization: x\r\nConnection: X-Hop\r\nX-Hop: 1\r\nContent-Length: 2\r\nContent-Length: 2\r\nAccept: */*\r\n\r\n',
      ) as { value: never }
    ).value;
    expect(upstreamHead(head, '/p?q', 'a.test:8080', { kind: 'length', length: 2 })).toBe(
      'POST /p?q HTTP/1.1\r\nHost: a.test:8080\r\nAccept: */*\r\nContent-Length: 2\r\nConnection: close\r\n\r\n',
    );
  });
});

describe('response heads', () => {
  it('the final head gets Connection: close; an interim 1xx passes as it is; an unreadable head passes untouched', () => {
    expect(
      clientResponseHead(
        'HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\nContent-Length: 2\r\n\r\n',
      ),
    ).toEqual({
      head: 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n',
      final: true,
    });
    expect(clientResponseHead('HTTP/1.1 100 Continue\r\n\r\n')).toEqual({
      head: 'HTTP/1.1 100 Continue\r\n\r\n',
      final: false,
    });
    expect(clientResponseHead('ICY 200 OK\r\n\r\n')).toEqual({ head: 'ICY 200 OK\r\n\r\n', final: true });
  });
});
