import { normaliseHost } from '@toolgate/core';

/** A `host:port` a client asked for, normalised; undefined when it is no host and port. */
export function parseAuthority(text: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text);
  if (!m) return undefined;
  const port = Number(m[3]);
  const host = normaliseHost(m[1] ?? m[2] ?? '');
  if (host === null || port < 1 || port > 65535) return undefined;
  return { host, port };
}

/**
 * Where the proxy connects for a host it allowed: the test/development map first (`hosts`, like curl's
 * `--resolve` or docker's `--add-host`: names mapped to addresses outside the sandbox), else the host itself
 * (Node resolves names with the system resolver, outside the sandbox).
 */
export function connectAddress(host: string, hosts: ReadonlyMap<string, string> | undefined): string {
  return hosts?.get(host) ?? host;
}

/** The scheme a tunnel is judged under: CONNECT and SOCKS carry bytes the proxy cannot read. */
export function tunnelScheme(port: number): string {
  return port === 443 ? 'https' : 'tcp';
}
