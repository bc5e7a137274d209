import type { NetMethod, NetworkAction } from '@toolgate/core';

/** How a connection reached the proxy. */
export type ProxyVia = 'http' | 'connect' | 'socks5';

/** One connection (or one plain-HTTP request) the proxy judged: what the audit trail records. */
export interface ConnectionRecord {
  /** The host as asked for, normalised (`normaliseHost`); the raw text when it is no host at all. */
  host: string;
  port: number;
  /** `http` for a plain request, `https`/`tcp` otherwise (CONNECT and SOCKS cannot tell what runs inside). */
  scheme: string;
  method: NetMethod;
  via: ProxyVia;
  /** What happened: `allow` (connected, or tried to), `deny`. A prompt ends as one of them. */
  action: Exclude<NetworkAction, 'prompt'>;
  /** The rule that decided (`allow allowed.test`, `default: deny`), or why the request was refused. */
  rule: string;
  source?: string;
  /** The policy said `prompt`: whether someone approved is `action`. */
  prompted?: boolean;
  /** ms since the epoch. */
  time: number;
}
