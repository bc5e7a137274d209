// The HTTP/1.1 the proxy needs to read (RFC 9112), and no more: a request's head, the framing of its body, and
// the head of a response. Strict where a lenient reading could let two parties disagree about where a message
// ends (request smuggling): CRLF only, no obs-fold, no control characters, one Content-Length value, chunked
// as the only transfer coding, never both. What the proxy cannot read with certainty it refuses (400).

/** The largest head the proxy reads (Node's default limit is 16 KiB; curl and browsers stay far below). */
export const MAX_HEAD = 64 * 1024;

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const TARGET = /^[\x21-\x7e]+$/;
/** Field values: visible characters, spaces and tabs, and obs-text (bytes ≥ 0x80, read as latin1). */
const BAD_VALUE = /[\x00-\x08\x0a-\x1f\x7f]/;

export interface RequestHead {
  method: string;
  /** As written: an absolute URI, an authority (CONNECT), or anything else (refused by the caller). */
  target: string;
  /** `1.0` or `1.1`. */
  version: string;
  /** Names as sent, values trimmed; in order. */
  headers: Array<[string, string]>;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

/** Where a head ends in `buf` (the index after its blank line), or -1. Leading blank lines are skipped by the parser. */
export function headEnd(buf: Buffer): number {
  const i = buf.indexOf('\r\n\r\n', 0, 'latin1');
  return i < 0 ? -1 : i + 4;
}

function fields(lines: readonly string[]): Parsed<Array<[string, string]>> {
  const headers: Array<[string, string]> = [];
  for (const line of lines) {
    if (line === '') continue; // the blank line that ends the head
    if (line[0] === ' ' || line[0] === '\t') return { ok: false, reason: 'a folded header line (obs-fold)' };
    const colon = line.indexOf(':');
    const name = colon < 0 ? '' : line.slice(0, colon);
    if (!TOKEN.test(name))
      return { ok: false, reason: `a malformed header line ${JSON.stringify(line.slice(0, 60))}` };
    const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '');
    if (BAD_VALUE.test(value)) return { ok: false, reason: `a control character in header ${name}` };
    headers.push([name, value]);
  }
  return { ok: true, value: headers };
}

/** Splits a head into lines; a bare CR or LF anywhere is refused (CRLF only). */
function lines(text: string): string[] | undefined {
  const out = text.split('\r\n');
  for (const line of out) if (line.includes('\r') || line.includes('\n')) return undefined;
  return out;
}

/** Parses a request head (the bytes up to and including its blank line, as latin1). */
export function parseRequestHead(text: string): Parsed<RequestHead> {
  const all = lines(text.replace(/^(?:\r\n)+/, ''));
  if (all === undefined) return { ok: false, reason: 'a bare CR or LF in the head' };
  const m = /^([^ ]+) ([^ ]+) HTTP\/1\.([01])$/.exec(all[0] ?? '');
  if (!m || !TOKEN.test(m[1]!) || !TARGET.test(m[2]!))
    return { ok: false, reason: `a malformed request line ${JSON.stringify((all[0] ?? '').slice(0, 80))}` };
  const headers = fields(all.slice(1));
  if (!headers.ok) return headers;
  return { ok: true, value: { method: m[1]!, target: m[2]!, version: `1.${m[3]}`, headers: headers.value } };
}

/** Every value of a header (case-insensitive), comma lists split and trimmed. */
export function headerValues(headers: ReadonlyArray<[string, string]>, name: string): string[] {
  const out: string[] = [];
  for (const [n, v] of headers)
    if (n.toLowerCase() === name)
      for (const part of v.split(',')) if (part.trim() !== '') out.push(part.trim());
  return out;
}

/** How a request's body is delimited: none, a length, or chunked. */
export type BodyFraming = { kind: 'none' } | { kind: 'length'; length: number } | { kind: 'chunked' };

/** The framing of a request body (RFC 9112 §6.3), refusing every ambiguous case. */
export function requestFraming(head: RequestHead): Parsed<BodyFraming> {
  const te = headerValues(head.headers, 'transfer-encoding');
  const hasTe = head.headers.some(([n]) => n.toLowerCase() === 'transfer-encoding');
  const hasCl = head.headers.some(([n]) => n.toLowerCase() === 'content-length');
  if (hasTe) {
    if (hasCl) return { ok: false, reason: 'both Transfer-Encoding and Content-Length' };
    if (head.version !== '1.1') return { ok: false, reason: 'Transfer-Encoding in an HTTP/1.0 request' };
    if (te.length !== 1 || te[0]!.toLowerCase() !== 'chunked')
      return { ok: false, reason: `the transfer coding ${JSON.stringify(te.join(', '))} (only chunked)` };
    return { ok: true, value: { kind: 'chunked' } };
  }
  if (hasCl) {
    const values = new Set(headerValues(head.headers, 'content-length'));
    const [only] = values;
    if (values.size !== 1 || !/^\d{1,15}$/.test(only!))
      return { ok: false, reason: `the Content-Length ${JSON.stringify([...values].join(', '))}` };
    const length = Number(only);
    return { ok: true, value: length === 0 ? { kind: 'none' } : { kind: 'length', length } };
  }
  return { ok: true, value: { kind: 'none' } };
}

/**
 * Follows a request body through the bytes the client sends, telling how many of them belong to it; the
 * rest (a pipelined next request) is never forwarded. Chunked bodies are checked as they pass: a chunk-size
 * line, the chunk, its CRLF, and after the last chunk the trailer lines up to a blank one.
 */
export class BodyTracker {
  private left: number;
  private state: 'size' | 'data' | 'data-crlf' | 'trailer' | 'done';
  private line = '';

  constructor(private readonly framing: BodyFraming) {
    this.left = framing.kind === 'length' ? framing.length : 0;
    this.state = framing.kind === 'none' ? 'done' : framing.kind === 'length' ? 'data' : 'size';
  }

  get done(): boolean {
    return this.state === 'done';
  }

  /** How many bytes of `chunk` (from its start) belong to the body; throws on a malformed chunked body. */
  take(chunk: Buffer): number {
    let i = 0;
    while (i < chunk.length && this.state !== 'done') {
      if (this.state === 'data') {
        const n = Math.min(this.left, chunk.length - i);
        i += n;
        this.left -= n;
        if (this.left === 0) this.state = this.framing.kind === 'length' ? 'done' : 'data-crlf';
        continue;
      }
      // A line: chunk size, the CRLF after a chunk's data, or a trailer line.
      const nl = chunk.indexOf(10, i);
      const end = nl < 0 ? chunk.length : nl + 1;
      this.line += chunk.toString('latin1', i, end);
      i = end;
      if (this.line.length > 4096) throw new Error('a chunk-size or trailer line over 4 KiB');
      if (this.state === 'data-crlf' && !'\r\n'.startsWith(this.line))
        throw new Error('no CRLF after a chunk');
      if (nl < 0) break;
      if (!this.line.endsWith('\r\n') || this.line.slice(0, -2).includes('\r'))
        throw new Error('a bare LF in a chunked body');
      const text = this.line.slice(0, -2);
      this.line = '';
      if (this.state === 'data-crlf') {
        if (text !== '') throw new Error('no CRLF after a chunk');
        this.state = 'size';
      } else if (this.state === 'size') {
        const m = /^([0-9A-Fa-f]{1,12})(?:[ \t]*;.*)?$/.exec(text);
        if (!m || BAD_VALUE.test(text))
          throw new Error(`a malformed chunk size ${JSON.stringify(text.slice(0, 40))}`);
        this.left = Number.parseInt(m[1]!, 16);
        this.state = this.left === 0 ? 'trailer' : 'data';
      } else if (text === '') this.state = 'done';
      else if (!fields([text]).ok) throw new Error('a malformed trailer line');
    }
    return i;
  }
}

/**
 * Hop-by-hop headers (RFC 9110 §7.6.1) and the proxy's own: never forwarded, either way. Transfer-Encoding
 * stays: bodies pass through as they were framed.
 */
const HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'upgrade',
]);

/** The headers to forward: without hop-by-hop ones, those `Connection` names, and `skip`. */
export function endToEnd(headers: ReadonlyArray<[string, string]>, skip?: string): Array<[string, string]> {
  const drop = new Set(HOP);
  for (const name of headerValues(headers, 'connection')) drop.add(name.toLowerCase());
  if (skip !== undefined) drop.add(skip);
  return headers.filter(([n]) => !drop.has(n.toLowerCase()));
}

/**
 * The head sent upstream: origin-form target (absolute form, with the machine's own proxy's credentials, when
 * it goes through that proxy), the judged authority as Host (a client's own Host naming
 * another site would reach that site's virtual host on a shared server: domain fronting), end-to-end
 * headers, the body's framing (`framing`) and `Connection: close` — one request per connection, so each
 * request is judged on its own.
 */
export function upstreamHead(
  head: RequestHead,
  target: string,
  host: string,
  framing: BodyFraming,
  proxyAuthorization?: string,
): string {
  let out = `${head.method} ${target} HTTP/1.1\r\nHost: ${host}\r\n`;
  if (proxyAuthorization !== undefined) out += `Proxy-Authorization: ${proxyAuthorization}\r\n`;
  const sentLength = head.headers.some(([n]) => n.toLowerCase() === 'content-length');
  for (const [n, v] of endToEnd(head.headers, 'host')) {
    const name = n.toLowerCase();
    if (name !== 'content-length' && name !== 'transfer-encoding') out += `${n}: ${v}\r\n`;
  }
  // The framing as the proxy read it, once: a repeated Content-Length (the same value) is not passed on for a
  // server to refuse or read otherwise.
  if (framing.kind === 'chunked') out += 'Transfer-Encoding: chunked\r\n';
  else if (framing.kind === 'length') out += `Content-Length: ${framing.length}\r\n`;
  else if (sentLength) out += 'Content-Length: 0\r\n';
  return `${out}Connection: close\r\n\r\n`;
}

/**
 * A response head as the client should get it: `Connection: close` instead of the server's connection
 * headers (the proxy closes after one response). A 1xx interim head (100 Continue) is passed as it is, and
 * `final` is false: another head follows. A head the proxy cannot read is passed as it is (the bytes are
 * the allowed server's; the connection closes after them all the same).
 */
export function clientResponseHead(text: string): { head: string; final: boolean } {
  const all = lines(text);
  const m = all && /^HTTP\/1\.[01] (\d{3})(?: .*)?$/.exec(all[0] ?? '');
  if (!all || !m) return { head: text, final: true };
  const status = Number(m[1]);
  if (status >= 100 && status < 200 && status !== 101) return { head: text, final: false };
  const parsed = fields(all.slice(1));
  if (!parsed.ok) return { head: text, final: true };
  let out = `${all[0]}\r\n`;
  for (const [n, v] of endToEnd(parsed.value)) out += `${n}: ${v}\r\n`;
  return { head: `${out}Connection: close\r\n\r\n`, final: true };
}
