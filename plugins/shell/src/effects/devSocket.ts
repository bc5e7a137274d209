import { existsSync } from 'node:fs';
import type { Op } from '@toolgate/core';
import { parseTarget } from '@toolgate/core';
import type { Field } from '../state/expandWord.js';
import type { AccessSink } from './accessSink.js';

const DEV_SOCKET = /^\/dev\/(tcp|udp)\/(.+)\/([^/]+)$/;

/**
 * Bash opens a socket itself for a redirection to `/dev/tcp/HOST/PORT` or `/dev/udp/HOST/PORT` (bash(1)
 * "REDIRECTION"): `cat < /dev/tcp/evil/80`, `exec 3<>/dev/tcp/h/443`, `echo x > /dev/udp/h/53`. That is a
 * reach of HOST (the path access stays too). A target that may be such a name but is not known is an
 * uncertain reach. Writing (`>`, `<>`) sends data: `write`; only reading (`<`) is `read`.
 *
 * Returns `true` when the target is such a socket and no file: bash never opens a file there, and a shell
 * without the feature (dash) fails to open it, since `/dev/tcp` does not exist — so the caller emits no path
 * access. Should `/dev/tcp` (or `/dev/udp`) exist as a real directory, the path is judged as well.
 */
export function devSocket(sink: AccessSink, f: Field, op: Op): boolean {
  const method = op === 'read' ? 'read' : 'write';
  const origin = `${sink.prefix}:redirect`;
  if (f.uncertain !== undefined) {
    if (/\/dev\/(tcp|udp)\b|^\$|^"?\$/.test(f.raw))
      sink.reach({
        raw: f.raw,
        host: null,
        method,
        origin,
        certain: false,
        reason: `a redirection to a socket not known: ${f.uncertain}`,
      });
    return false;
  }
  const m = DEV_SOCKET.exec(f.value);
  if (!m) return false;
  const [, scheme, host, port] = m;
  const t = parseTarget(`${host!.includes(':') ? `[${host}]` : host}:${port}`, scheme);
  sink.reach(
    t.host === null || !/^\d+$/.test(port!)
      ? {
          raw: f.value,
          scheme,
          host: null,
          method,
          origin,
          certain: false,
          reason: `bash opens a ${scheme} socket to a host or port not known`,
        }
      : {
          raw: f.value,
          scheme: scheme!,
          host: t.host,
          port: Number(port),
          method,
          origin,
          certain: true,
          reason: `bash opens a ${scheme} socket itself`,
        },
  );
  return !existsSync(`/dev/${scheme}`);
}
