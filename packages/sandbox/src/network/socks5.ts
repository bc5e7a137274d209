import type { Socket } from 'node:net';
import { normaliseHost } from '@toolgate/core';
import type { ConnectionRecord } from './connectionRecord.js';
import { type DialOptions, dialTunnel, relay } from './dial.js';
import { type Judge, record } from './judge.js';
import { tunnelScheme } from './target.js';

// SOCKS5 (RFC 1928), CONNECT only, no authentication: what `ALL_PROXY=socks5h://…` clients (curl, git's
// http, pip with PySocks) and ssh's ProxyCommand helpers speak. Names are resolved by the proxy (ATYP 3).

const REPLY = {
  ok: 0,
  failure: 1,
  notAllowed: 2,
  networkUnreachable: 3,
  hostUnreachable: 4,
  refused: 5,
  commandNotSupported: 7,
  addressNotSupported: 8,
} as const;

function reply(code: number): Buffer {
  return Buffer.from([5, code, 0, 1, 0, 0, 0, 0, 0, 0]);
}

function errnoReply(code: string | undefined): number {
  if (code === 'ECONNREFUSED') return REPLY.refused;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH') return REPLY.hostUnreachable;
  if (code === 'ENETUNREACH') return REPLY.networkUnreachable;
  return REPLY.failure;
}

/** Reads exactly what the handshake needs from a paused socket, then hands the rest to the tunnel. */
class Reader {
  private buf: Buffer = Buffer.alloc(0);
  private waiting: (() => void) | undefined;
  private ended = false;
  constructor(
    private readonly socket: Socket,
    first: Buffer,
  ) {
    this.buf = first;
    socket.on('data', (chunk: Buffer) => {
      this.buf = Buffer.concat([this.buf, chunk]);
      if (this.buf.length > 1024) socket.destroy(); // a handshake is never this long
      this.waiting?.();
    });
    socket.on('end', () => {
      this.ended = true;
      this.waiting?.();
    });
    socket.on('close', () => {
      this.ended = true;
      this.waiting?.();
    });
    socket.resume(); // the listener paused it after the first chunk
  }
  async take(n: number): Promise<Buffer | undefined> {
    while (this.buf.length < n) {
      if (this.ended) return undefined;
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
      });
      this.waiting = undefined;
    }
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    return out;
  }
  rest(): Buffer {
    this.socket.removeAllListeners('data');
    this.socket.removeAllListeners('end');
    return this.buf;
  }
}

function ipv6Text(b: Buffer): string {
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(b.readUInt16BE(i).toString(16));
  return groups.join(':');
}

/** Serves one SOCKS5 client whose first bytes (`first`, starting with 0x05) have been read. */
export async function serveSocks5(
  client: Socket,
  first: Buffer,
  judge: Judge,
  options: DialOptions,
  onConnection: ((record: ConnectionRecord) => void) | undefined,
): Promise<void> {
  const r = new Reader(client, first);
  const hello = await r.take(2);
  if (!hello) return void client.destroy();
  const methods = await r.take(hello[1]!);
  if (!methods) return void client.destroy();
  if (!methods.includes(0)) return void client.end(Buffer.from([5, 0xff]));
  client.write(Buffer.from([5, 0]));
  const head = await r.take(4);
  if (head?.[0] !== 5) return void client.destroy();
  const [, cmd, , atyp] = head as Buffer;
  let raw: string | undefined;
  if (atyp === 1) {
    const a = await r.take(4);
    raw = a ? [...a].join('.') : undefined;
  } else if (atyp === 3) {
    const len = await r.take(1);
    const name = len ? await r.take(len[0]!) : undefined;
    raw = name?.toString('latin1');
  } else if (atyp === 4) {
    const a = await r.take(16);
    raw = a ? ipv6Text(a) : undefined;
  } else return void client.end(reply(REPLY.addressNotSupported));
  const portBytes = await r.take(2);
  if (raw === undefined || !portBytes) return void client.destroy();
  const port = portBytes.readUInt16BE(0);
  const host = normaliseHost(raw);
  if (cmd !== 1 || host === null || port === 0) {
    record(onConnection, {
      host: host ?? raw,
      port,
      scheme: 'tcp',
      method: 'write',
      via: 'socks5',
      action: 'deny',
      rule: cmd !== 1 ? `SOCKS command ${cmd} is not supported (only CONNECT)` : 'not a host:port',
      time: Date.now(),
    });
    return void client.end(reply(cmd !== 1 ? REPLY.commandNotSupported : REPLY.addressNotSupported));
  }
  client.pause();
  const verdict = await judge({ host, port, scheme: tunnelScheme(port), method: 'write' }, 'socks5');
  if (verdict.action === 'deny') return void client.end(reply(REPLY.notAllowed));
  const rest = r.rest();
  let upstream: Socket;
  try {
    upstream = await dialTunnel(host, port, options);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (client.writable) client.end(reply(code === 'EUPSTREAM' ? REPLY.failure : errnoReply(code)));
    return;
  }
  relay(client, upstream, reply(REPLY.ok), rest);
  upstream.on('close', () => client.destroy());
}
