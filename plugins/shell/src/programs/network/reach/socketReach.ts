import type { CommandContext, CommandHandler } from '../../../effects/extractTypes.js';
import type { Field } from '../../../state/expandWord.js';
import { type ArgSpec, has, parseArgs, values } from '../../argv.js';
import { reachAddress, unknownHost } from './netReach.js';

// Programs that open a raw socket to `host port`: netcat (OpenBSD nc(1), ncat(1), traditional netcat),
// socat(1) addresses, telnet(1), `openssl s_client`(1ssl). Their path effects stay the unknown-command rule
// (none of them is in the command table); this is only where they connect. Data flows both ways: `write`.

/** Options of OpenBSD nc, ncat and traditional netcat that take a value (their man pages' synopses). */
const NC: ArgSpec = {
  short: 'IiMmOPpqsTVWwXxecgGo',
  long: [
    'proxy',
    'proxy-type',
    'proxy-auth',
    'proxy-dns',
    'exec',
    'sh-exec',
    'lua-exec',
    'source',
    'source-port',
    'wait',
    'idle-timeout',
    'output',
    'hex-dump',
    'append-output',
    'allow',
    'allowfile',
    'deny',
    'denyfile',
    'max-conns',
    'send-only',
    'ssl-cert',
    'ssl-key',
    'ssl-trustfile',
    'ssl-ciphers',
    'ssl-servername',
    'ssl-alpn',
    'delay',
    'chat',
  ],
  flags: [
    'listen',
    'udp',
    'sctp',
    'keep-open',
    'ssl',
    'unixsock',
    'vsock',
    'broker',
    'nodns',
    'version',
    'help',
  ],
};

const nc: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, NC);
  // Listening (`-l`) accepts connections: no outbound reach. A Unix socket (`-U`) is a path.
  if (has(p, '-l', '--listen', '-U', '--unixsock', '-h', '--help', '--version')) return;
  const udp = has(p, '-u', '--udp');
  const [host, port] = p.operands;
  const scheme = udp ? 'udp' : 'tcp';
  for (const x of values(p, '-x', '--proxy'))
    reachAddress(cx, x, {
      method: 'write',
      scheme: 'socks5',
      port: 1080,
      origin: `${cx.name}:proxy`,
      reason: `${cx.name} -x: the connection goes through this proxy`,
    });
  if (!host) return;
  if (host.uncertain !== undefined || (port !== undefined && port.uncertain !== undefined)) {
    unknownHost(cx, host.raw, { method: 'write', scheme }, `${cx.name}: the host or port is not known`);
    return;
  }
  withPort(cx, host.value, port?.value, scheme);
};

function withPort(
  cx: CommandContext,
  host: string,
  port: string | undefined,
  scheme: string,
  origin?: string,
): void {
  const h = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  // A port range (`nc -z host 20-30`) or a service name: the host is what matters.
  const p = port !== undefined && /^\d+$/.test(port) ? `:${port}` : '';
  reachAddress(cx, `${h}${p}`, { method: 'write', scheme, ...(origin !== undefined ? { origin } : {}) });
}

const telnet: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, { short: 'bleknSX' });
  const [host, port] = p.operands;
  if (!host) return;
  if (host.uncertain !== undefined)
    unknownHost(cx, host.raw, { method: 'write', scheme: 'telnet' }, 'telnet: the host is not known');
  else withPort(cx, host.value, port?.value ?? '23', 'telnet');
};

/** socat address types that connect out, and which of their `:`-separated parameters are host and port. */
const SOCAT_CONNECT: Readonly<Record<string, { scheme: string; proxied?: boolean }>> = {
  tcp: { scheme: 'tcp' },
  tcp4: { scheme: 'tcp' },
  tcp6: { scheme: 'tcp' },
  'tcp-connect': { scheme: 'tcp' },
  'tcp4-connect': { scheme: 'tcp' },
  'tcp6-connect': { scheme: 'tcp' },
  udp: { scheme: 'udp' },
  udp4: { scheme: 'udp' },
  udp6: { scheme: 'udp' },
  'udp-connect': { scheme: 'udp' },
  'udp-sendto': { scheme: 'udp' },
  'udp-datagram': { scheme: 'udp' },
  openssl: { scheme: 'tcp' },
  ssl: { scheme: 'tcp' },
  'openssl-connect': { scheme: 'tcp' },
  sctp: { scheme: 'sctp' },
  'sctp-connect': { scheme: 'sctp' },
  socks4: { scheme: 'tcp', proxied: true },
  socks4a: { scheme: 'tcp', proxied: true },
  socks5: { scheme: 'tcp', proxied: true },
  'socks5-connect': { scheme: 'tcp', proxied: true },
  proxy: { scheme: 'tcp', proxied: true },
  'proxy-connect': { scheme: 'tcp', proxied: true },
};

/** Address types that only listen, or touch local things (files, pipes, programs: the path side's). */
const SOCAT_LOCAL =
  /^(-|stdio|stdin|stdout|stderr|file|open|create|gopen|pipe|exec|system|pty|unix|unix-\w+|abstract-\w+|fd|tcp\d?-listen|tcp\d?-l|udp\d?-listen|udp\d?-recv(from)?|openssl-listen|ssl-l|sctp-listen|readline|tun|socket-listen|vsock-listen)$/;

const socat: CommandHandler = (cx) => {
  for (const f of cx.args) {
    if (f.value.startsWith('-') && f.value !== '-') continue;
    if (f.uncertain !== undefined) {
      unknownHost(cx, f.raw, { method: 'write' }, 'socat: an address is not known');
      continue;
    }
    const spec = f.value.split(',')[0]!;
    const m = /^([A-Za-z0-9-]+):(.*)$/.exec(spec);
    const type = (m?.[1] ?? spec).toLowerCase();
    if (SOCAT_LOCAL.test(type) || !m) continue;
    const kind = SOCAT_CONNECT[type];
    if (kind === undefined) {
      unknownHost(cx, f.value, { method: 'write' }, `socat: address type ${m[1]} is not modelled`);
      continue;
    }
    const params = m[2]!.match(/\[[^\]]*\]|[^:]+/g) ?? [];
    if (kind.proxied) {
      // SOCKS4:server:host:port, PROXY:proxy:host:port (socks port default 1080, proxyport 8080).
      withPort(
        cx,
        params[0] ?? '',
        type === 'proxy' || type === 'proxy-connect' ? '8080' : '1080',
        kind.scheme,
        'socat:proxy',
      );
      withPort(cx, params[1] ?? '', params[2], kind.scheme);
      continue;
    }
    withPort(cx, params[0] ?? '', params[1], kind.scheme);
  }
};

/** `openssl s_client -connect host:port` (default localhost:4433), `-proxy host:port`. */
const openssl: CommandHandler = (cx) => {
  const [sub, ...rest] = cx.args;
  if (sub?.value !== 's_client') return;
  let connect: Field | undefined;
  let host: Field | undefined;
  let port: Field | undefined;
  for (let k = 0; k < rest.length; k++) {
    const o = rest[k]!.value;
    const v = rest[k + 1];
    if (o === '-connect') connect = v;
    else if (o === '-host') host = v;
    else if (o === '-port') port = v;
    else if (o === '-proxy' && v)
      reachAddress(cx, v, { method: 'write', scheme: 'http', origin: 'openssl:proxy' });
  }
  const target =
    connect ??
    (host || port
      ? {
          value: `${host?.value ?? 'localhost'}:${port?.value ?? '4433'}`,
          raw: 's_client',
          glob: -1,
          tilde: false,
          ...((host?.uncertain ?? port?.uncertain) ? { uncertain: 'not known' } : {}),
        }
      : undefined);
  reachAddress(cx, target ?? 'localhost:4433', { method: 'write', scheme: 'tls' });
};

export const socketReach: Record<string, CommandHandler> = {
  nc,
  ncat: nc,
  netcat: nc,
  'nc.openbsd': nc,
  'nc.traditional': nc,
  socat,
  telnet,
  openssl,
};
