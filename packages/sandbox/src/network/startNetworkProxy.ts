import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { dirname, isAbsolute, join } from 'node:path';
import {
  type CompiledNetworkPolicy,
  describeValue,
  lazyBuiltin,
  normaliseHost,
  ToolgateError,
} from '@toolgate/core';
import type { ConnectionRecord } from './connectionRecord.js';
import { parseUpstream, type Upstream } from './dial.js';
import { serveHttp, warmUp } from './httpProxy.js';
import { createJudge, type PromptRequest } from './judge.js';
import { proxyBase } from './proxyDir.js';
import { serveSocks5 } from './socks5.js';

// Loaded when a proxy starts: `toolgate run` and the hook load this package, and node:net with the stream
// modules is ≈ 3.5 ms of their start (see ../launch.ts).
const net = lazyBuiltin<typeof import('node:net')>('node:net');

export interface NetworkProxyOptions {
  /** The compiled `network` section (folder-rules' `policy.network`). */
  policy: CompiledNetworkPolicy;
  /**
   * Where to listen: a path whose directory this call creates with mode 0700 and which must not exist yet
   * (a rewritten command names it before the proxy starts: see `sandbox-exec`; `newProxySocketPath()`
   * makes one). Default: a fresh private directory under this user's proxy directory (`proxyBase()`), which
   * every network-confined sandbox hides.
   */
  socketPath?: string;
  /** Asked for each host a `prompt` rule matches (once per host, port and method); absent ⇒ denied. */
  onPrompt?: (request: PromptRequest) => Promise<boolean>;
  /** How long the client waits for `onPrompt` before it is denied (default 60 000 ms). */
  promptTimeoutMs?: number;
  /** Every connection the proxy judged, allowed or denied (the CLI writes them to the audit trail). */
  onConnection?: (record: ConnectionRecord) => void;
  /**
   * Names mapped to addresses, used instead of the system resolver for these names (tests, and a
   * development setup like curl's `--resolve`). The policy still judges the name the client asked for.
   */
  hosts?: Readonly<Record<string, string>>;
  /**
   * The HTTP proxy this machine must go through to reach the network (`http://[user:pass@]host:port`, a
   * corporate proxy), and the hosts that bypass it (`noProxy`, NO_PROXY's syntax): every connection the
   * policy allowed is made through it, except to loopback and `hosts`. Default: none (straight out).
   * `upstreamFromEnv(process.env)` reads HTTPS_PROXY/HTTP_PROXY/NO_PROXY, as `toolgate run` does.
   */
  upstream?: string | { url: string; noProxy?: string } | Upstream;
}

/** A running proxy: where it listens, and how to stop it. */
export interface NetworkProxy {
  readonly socketPath: string;
  /** Stops listening, ends every open connection, removes the socket's directory. Idempotent. */
  close(): Promise<void>;
}

function invalid(field: string, value: unknown, expected: string): ToolgateError {
  return new ToolgateError(
    'TOOLGATE_ERR_INVALID_OPTIONS',
    `startNetworkProxy: option ${field} must be ${expected}, got ${describeValue(value)}`,
  );
}

/**
 * Starts the sandbox's filtering proxy on a unix socket (never a TCP port on the host's interfaces): HTTP
 * forward requests, HTTPS through CONNECT and SOCKS5 on the one socket (told apart by the first byte), each
 * connection's host and port judged by the policy. A denial answers 403 with a text naming host and rule
 * (SOCKS: reply 2, "not allowed by ruleset"). The bridge (./bridge.ts) reaches it from inside the sandbox.
 *
 * @example
 * ```ts
 * const proxy = await startNetworkProxy({ policy: policy.network!, onConnection: (c) => log(c) });
 * const argv = box.prefix(ctx, [], { network: { socket: proxy.socketPath } });
 * await runSandboxed(argv[0]!, [...argv.slice(1), 'curl', 'https://registry.npmjs.org/']);
 * await proxy.close();
 * ```
 */
export async function startNetworkProxy(options: NetworkProxyOptions): Promise<NetworkProxy> {
  if (options === null || typeof options !== 'object')
    throw invalid('(options)', options, 'an object {policy, socketPath?, onPrompt?, onConnection?, hosts?}');
  const { policy } = options;
  if (policy === null || typeof policy !== 'object' || typeof policy.decide !== 'function')
    throw invalid('policy', policy, "a CompiledNetworkPolicy (folder-rules' policy.network)");
  if (
    options.socketPath !== undefined &&
    (typeof options.socketPath !== 'string' || !isAbsolute(options.socketPath))
  )
    throw invalid('socketPath', options.socketPath, 'an absolute path');
  if (options.onPrompt !== undefined && typeof options.onPrompt !== 'function')
    throw invalid('onPrompt', options.onPrompt, 'a function');
  if (options.onConnection !== undefined && typeof options.onConnection !== 'function')
    throw invalid('onConnection', options.onConnection, 'a function');
  const timeout = options.promptTimeoutMs;
  if (timeout !== undefined && (!Number.isSafeInteger(timeout) || timeout <= 0))
    throw invalid('promptTimeoutMs', timeout, 'a positive integer');
  let upstream: Upstream | undefined;
  const up = options.upstream;
  if (up !== undefined) {
    if (typeof up === 'string') upstream = parseUpstream(up, undefined);
    else if (up !== null && typeof up === 'object' && 'url' in up)
      upstream = parseUpstream(up.url, up.noProxy);
    else if (up !== null && typeof up === 'object' && 'host' in up && Array.isArray(up.noProxy))
      upstream = up;
    else throw invalid('upstream', up, 'an http:// proxy URL or {url, noProxy?}');
  }
  let hosts: Map<string, string> | undefined;
  if (options.hosts !== undefined) {
    if (options.hosts === null || typeof options.hosts !== 'object')
      throw invalid('hosts', options.hosts, 'an object of host names to addresses');
    hosts = new Map();
    for (const [name, address] of Object.entries(options.hosts)) {
      const host = normaliseHost(name);
      if (host === null || typeof address !== 'string' || address === '')
        throw invalid(`hosts[${JSON.stringify(name)}]`, address, 'an address for a host name');
      hosts.set(host, address);
    }
  }

  // The socket's directory is private (0700): only this user reaches the proxy, and only through the
  // bind-mounted path inside the sandbox.
  let dir: string;
  if (options.socketPath === undefined) dir = mkdtempSync(join(proxyBase(), 'run-'));
  else {
    dir = dirname(options.socketPath);
    // Not recursive, and it must not exist: a directory someone else made first is never used.
    mkdirSync(dir, { mode: 0o700 });
  }
  const socketPath = options.socketPath ?? join(dir, 'proxy.sock');

  const judge = createJudge({
    policy,
    onPrompt: options.onPrompt,
    promptTimeoutMs: timeout,
    onConnection: options.onConnection,
  });
  const http = { judge, hosts, upstream, onConnection: options.onConnection };
  const sockets = new Set<Socket>();
  const server = net().createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.once('data', (first: Buffer) => {
      socket.pause();
      if (first[0] === 5)
        void serveSocks5(socket, first, judge, http, options.onConnection).catch(() => socket.destroy());
      else if (first[0] === 4) {
        // SOCKS4 carries no way to say "resolve this name" safely in every client: refused.
        socket.end(Buffer.from([0, 0x5b, 0, 0, 0, 0, 0, 0]));
      } else serveHttp(socket, first, http);
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  // While bubblewrap builds the sandbox (≈ 6 ms before the command even starts), the request path is run
  // once: its pure parts on canned text, then one connection to the proxy's own socket with a request the
  // proxy refuses (400, nothing judged, nothing recorded). Measured: a fresh proxy's first request ≈ 4.4 ms
  // without this, ≈ 2.9 ms with it (README, "Network").
  setImmediate(() => {
    if (closing !== undefined) return;
    try {
      warmUp((host) => policy.decide({ host, port: 80, scheme: 'http', method: 'read' }));
    } catch {
      /* a warm-up only */
    }
    const self = net().connect(socketPath);
    sockets.add(self);
    self.on('close', () => sockets.delete(self));
    self.on('error', () => self.destroy());
    self.on('data', () => self.destroy());
    self.write('GET / HTTP/1.1\r\n\r\n');
  });
  let closing: Promise<void> | undefined;
  return {
    socketPath,
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        });
      });
      return closing;
    },
  };
}
