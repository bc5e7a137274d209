import type { NetMethod } from '@toolgate/core';
import type { CommandContext, CommandHandler } from '../../../effects/extractTypes.js';
import type { Field } from '../../../state/expandWord.js';
import { type ArgSpec, has, parseArgs, values } from '../../argv.js';
import { RSYNC_SPEC } from '../../files/copyMove.js';
import { SCP } from '../../files/copyMoveOptions.js';
import { sshInputs } from '../sshConfig.js';
import { reachAddress, unknownHost, variableValue } from './netReach.js';
import { optionLine, sshHostSettings } from './sshHosts.js';

// Where ssh, scp, sftp and rsync connect (ssh(1), ssh_config(5), scp(1), sftp(1), rsync(1); OpenSSH 9.2):
// the destination's `HostName` and `Port` from `-o`, the config files (`Host` blocks, includes in place),
// the jump hosts of `-J`/`ProxyJump` (each resolved the same way), forwardings (`-L`/`-W` hosts are reached
// through the server, `-R` hosts from here). A `ProxyCommand` makes the connection itself: uncertain.

const SSH: ArgSpec = { short: 'BbcDEeFIiJLlmOopQRSWw', shortFlags: '46AaCfGgKkMNnqsTtVvXxYy', posix: true };
const SFTP: ArgSpec = { short: 'BbcDFiJloPRSsX', shortFlags: '46AaCfNpqrv', posix: true };
const MAX_JUMPS = 4;

interface SshSetup {
  /** `-o` lines (first) and the config files' text; `null` when the config cannot be known. */
  lines: string[] | null;
  port?: Field;
  jump?: Field;
  method: NetMethod;
}

function setup(
  cx: CommandContext,
  opts: readonly { name: string; value?: Field }[],
  method: NetMethod,
): SshSetup {
  const o = opts.filter((x) => x.name === '-o' && x.value).map((x) => x.value!);
  const config = opts.filter((x) => x.name === '-F' && x.value).at(-1)?.value;
  const text = sshInputs(cx, config);
  const lines =
    text === null || o.some((f) => f.uncertain !== undefined)
      ? null
      : [...o.map((f) => optionLine(f.value)), ...text.split('\n')];
  return { lines, method };
}

/** The host (and port) ssh connects to for a destination (`[user@]host`, `ssh://[user@]host[:port]`). */
function destination(
  cx: CommandContext,
  dest: Field,
  s: SshSetup,
  depth: number,
  via?: string,
  origin?: string,
): void {
  const o = {
    method: s.method,
    scheme: 'ssh',
    ...(via !== undefined ? { reason: via } : {}),
    ...(origin !== undefined ? { origin } : {}),
  };
  if (dest.uncertain !== undefined || s.lines === null) {
    unknownHost(
      cx,
      dest.raw,
      o,
      dest.uncertain !== undefined
        ? `${cx.name}: the host is not known`
        : `${cx.name}: its config cannot be read`,
    );
    return;
  }
  // `ssh://[user@]host[:port]`, or `[user@]host[:port]` (a jump host; a destination has no port there).
  const uri =
    /^ssh:\/\/(?:[^@/]*@)?(\[[^\]]+\]|[^:/]+)(?::(\d+))?/i.exec(dest.value) ??
    /^(?:[^@/]*@)?(\[[^\]]+\]|[^:/]+)(?::(\d+))?$/.exec(dest.value);
  const alias = uri ? uri[1]!.replace(/^\[(.*)\]$/, '$1') : dest.value.replace(/^.*@/, '');
  const set = sshHostSettings(s.lines, alias);
  if (set.unknown !== undefined) {
    unknownHost(cx, dest.value, o, `${cx.name}: ${set.unknown}`);
    return;
  }
  if (set.canonicalize !== undefined && !/^no$/i.test(set.canonicalize)) {
    unknownHost(cx, dest.value, o, `${cx.name}: CanonicalizeHostname appends a domain to the name`);
    return;
  }
  let host = alias;
  if (set.hostName !== undefined) {
    const expanded = set.hostName.replace(/%h/g, alias).replace(/%%/g, '%');
    if (expanded.includes('%')) {
      unknownHost(cx, dest.value, o, `${cx.name}: HostName ${set.hostName} has % tokens`);
      return;
    }
    host = expanded;
  }
  const portText = s.port?.value ?? uri?.[2] ?? set.port;
  if (s.port?.uncertain !== undefined || (portText !== undefined && !/^\d+$/.test(portText))) {
    unknownHost(cx, dest.value, o, `${cx.name}: the port is not known`);
    return;
  }
  const jump = s.jump !== undefined ? s.jump.value : set.proxyJump;
  if (set.proxyCommand !== undefined && set.proxyCommand.toLowerCase() !== 'none' && s.jump === undefined) {
    unknownHost(cx, dest.value, o, `${cx.name}: ProxyCommand ${set.proxyCommand} makes the connection`);
    return;
  }
  const target = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  const port = portText !== undefined ? Number(portText) : 22;
  if (jump !== undefined && jump.toLowerCase() !== 'none') {
    if (s.jump?.uncertain !== undefined || depth >= MAX_JUMPS) {
      unknownHost(cx, dest.value, o, `${cx.name}: the jump host is not known`);
      return;
    }
    for (const j of jump.split(','))
      destination(
        cx,
        { value: j, raw: j, glob: -1, tilde: false },
        { ...s, port: undefined, jump: undefined },
        depth + 1,
        `${cx.name} jumps through it to ${host}`,
        origin,
      );
    reachAddress(cx, `ssh://${target}:${port}`, {
      ...o,
      reason: `${cx.name} reaches it through ProxyJump ${jump}`,
    });
    return;
  }
  reachAddress(cx, `ssh://${target}:${port}`, o);
}

/**
 * Where ssh connects for `[user@]host` run by another program (git's ssh transport): its config files and
 * jump hosts as for `ssh host`, the port given or the config's.
 */
export function reachOverSsh(
  cx: CommandContext,
  host: string,
  port: number | undefined,
  method: NetMethod,
  origin: string,
  sshCommand?: string,
): void {
  let opts: { name: string; value?: Field }[] = [];
  if (sshCommand !== undefined) {
    const parsed = sshCommandOptions(sshCommand);
    if (parsed === undefined) {
      unknownHost(
        cx,
        host,
        { method, origin, scheme: 'ssh' },
        `${cx.name}: the ssh command ${sshCommand} makes the connection`,
      );
      return;
    }
    opts = parsed;
  }
  const s = setup(cx, opts, method);
  const p = opts.filter((o) => o.name === '-p').at(-1)?.value;
  if (port !== undefined) s.port = { value: String(port), raw: String(port), glob: -1, tilde: false };
  else if (p !== undefined) s.port = p;
  destination(cx, { value: host, raw: host, glob: -1, tilde: false }, s, 0, undefined, origin);
}

/** Options of an ssh command line that only choose keys, config and port: no program, no other host. */
const PLAIN_SSH = new Set([
  '-i',
  '-o',
  '-p',
  '-F',
  '-l',
  '-q',
  '-v',
  '-T',
  '-4',
  '-6',
  '-n',
  '-x',
  '-a',
  '-C',
]);

/**
 * `GIT_SSH_COMMAND="ssh -i key -o StrictHostKeyChecking=no"` (git(1)): an ssh with options that only pick
 * keys, config files and the port is ssh to the same host; anything else (another program, quotes,
 * `-J`, `-o ProxyCommand` is read as config and judged there) is not followed: `undefined`.
 */
function sshCommandOptions(command: string): { name: string; value?: Field }[] | undefined {
  if (/["'\\$`;|&<>(){}]/.test(command)) return undefined;
  const [program, ...words] = command.trim().split(/\s+/);
  if (!/^(?:\/usr\/bin\/|\/bin\/)?ssh$/.test(program ?? '')) return undefined;
  const p = parseArgs(
    words.map((w) => ({ value: w, raw: w, glob: -1, tilde: false })),
    SSH,
  );
  if (p.operands.length > 0 || p.unknown.length > 0 || p.opts.some((o) => !PLAIN_SSH.has(o.name)))
    return undefined;
  return p.opts;
}

/** `-L [bind:]port:host:hostport`, `-R …`, `-W host:port`: the host at the far end of a forwarding. */
function forwardTarget(spec: string): string | undefined {
  const parts = spec.match(/\[[^\]]*\]|[^:]+/g) ?? [];
  if (parts.length < 3 || spec.includes('/')) return undefined;
  return `${parts.at(-2)}:${parts.at(-1)}`;
}

const ssh: CommandHandler = (cx) => {
  const first = parseArgs(cx.args, SSH);
  // ssh reads options after the destination too, up to the command (ssh.c: `ssh host -p 2222 cmd`).
  const at = first.operands[0] !== undefined ? cx.args.indexOf(first.operands[0]) : -1;
  const after = at >= 0 ? parseArgs(cx.args.slice(at + 1), SSH) : undefined;
  const p = after ? { ...first, opts: [...first.opts, ...after.opts] } : first;
  if (has(p, '-G', '-V')) return; // prints the configuration or the version: no connection
  const s = setup(cx, p.opts, 'write');
  s.port = values(p, '-p').at(-1);
  s.jump = values(p, '-J').at(-1);
  const dest = p.operands[0];
  if (!dest) return;
  destination(cx, dest, s, 0);
  for (const o of p.opts) {
    const v = o.value;
    if (!v) continue;
    if (
      o.name === '-D' ||
      (o.name === '-R' && forwardTarget(v.value) === undefined && !v.value.includes('/'))
    )
      unknownHost(
        cx,
        v.raw,
        { method: 'write', origin: 'ssh:forward' },
        `ssh ${o.name} opens a SOCKS proxy: any host`,
      );
    else if (o.name === '-L' || o.name === '-R' || o.name === '-W') {
      const t = v.uncertain === undefined ? (o.name === '-W' ? v.value : forwardTarget(v.value)) : undefined;
      if (t === undefined && v.value.includes('/') && v.uncertain === undefined) continue; // a Unix socket
      if (t === undefined)
        unknownHost(
          cx,
          v.raw,
          { method: 'write', origin: 'ssh:forward' },
          `ssh ${o.name}: the forwarded host is not known`,
        );
      else
        reachAddress(cx, t, {
          method: 'write',
          origin: 'ssh:forward',
          reason:
            o.name === '-R'
              ? 'ssh -R: this machine connects to it for the server'
              : `ssh ${o.name}: reached through ${dest.value}`,
        });
    }
  }
};

/** `[user@]host:path` or `scheme://…` (not a local path); scp and rsync's rule (a `/` before the `:` is local). */
function remoteOf(f: Field): boolean {
  if (f.uncertain !== undefined) return /:/.test(f.raw);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(f.value)) return true;
  const colon = f.value.indexOf(':');
  const slash = f.value.indexOf('/');
  return colon > 0 && (slash === -1 || colon < slash);
}

function hostPart(f: Field, scheme: string): Field {
  const v = f.value;
  const url = new RegExp(`^${scheme}://([^/]*)`, 'i').exec(v);
  if (url) return { ...f, value: `ssh://${url[1]}` };
  const bracket = /^((?:[^@/]*@)?\[[^\]]+\]):/.exec(v);
  return { ...f, value: bracket ? bracket[1]! : v.slice(0, v.indexOf(':')) };
}

const scp: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, SCP);
  const ops = p.operands;
  if (!ops.some(remoteOf)) return;
  const s = setup(cx, p.opts, 'read');
  s.port = values(p, '-P').at(-1);
  s.jump = values(p, '-J').at(-1);
  ops.forEach((f, k) => {
    if (!remoteOf(f)) return;
    const method: NetMethod = k === ops.length - 1 && ops.length > 1 ? 'write' : 'read';
    destination(cx, hostPart(f, 'scp'), { ...s, method }, 0);
  });
};

const sftp: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, SFTP);
  const [remote, local] = p.operands;
  if (!remote) return;
  // `host:path [local]` downloads; otherwise it runs get/put commands from stdin or -b.
  const download = values(p, '-b').length === 0 && /^[^/]*:./.test(remote.value) && local !== undefined;
  const s = setup(cx, p.opts, download ? 'read' : 'write');
  s.port = values(p, '-P').at(-1);
  s.jump = values(p, '-J').at(-1);
  const f =
    remote.uncertain === undefined && /^sftp:\/\//i.test(remote.value)
      ? hostPart(remote, 'sftp')
      : remote.uncertain === undefined && remote.value.includes(':')
        ? hostPart(remote, 'sftp')
        : remote;
  destination(cx, f, s, 0);
};

/** rsync: `host:path` over ssh (`-e` may change the port), `host::module`/`rsync://` to the daemon (873). */
const rsync: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, RSYNC_SPEC);
  const ops = p.operands;
  // `-e`, else `RSYNC_RSH` (rsync(1) ENVIRONMENT).
  const env = variableValue(cx, 'RSYNC_RSH');
  const rsh =
    values(p, '-e', '--rsh').at(-1) ??
    (env === undefined
      ? undefined
      : {
          value: env ?? '',
          raw: '$RSYNC_RSH',
          glob: -1,
          tilde: false,
          ...(env === null ? { uncertain: 'RSYNC_RSH is not known' } : {}),
        });
  const daemonPort = values(p, '--port').at(-1);
  ops.forEach((f, k) => {
    if (!remoteOf(f)) return;
    const method: NetMethod = k === ops.length - 1 && ops.length > 1 ? 'write' : 'read';
    if (f.uncertain !== undefined) {
      unknownHost(cx, f.raw, { method }, 'rsync: the host is not known');
      return;
    }
    const daemon = /^rsync:\/\/([^/]*)/i.exec(f.value)?.[1] ?? /^([^/:]*)::/.exec(f.value)?.[1];
    if (daemon !== undefined) {
      reachAddress(cx, daemon, {
        method,
        scheme: 'rsync',
        ...(daemonPort !== undefined && /^\d+$/.test(daemonPort.value)
          ? { port: Number(daemonPort.value) }
          : {}),
      });
      return;
    }
    let port: Field | undefined;
    if (rsh !== undefined) {
      const words = rsh.uncertain === undefined ? rsh.value.trim().split(/\s+/) : [];
      if (!/^(?:\S*\/)?ssh$/.test(words[0] ?? '')) {
        unknownHost(cx, f.value, { method }, `rsync -e ${rsh.raw}: the remote shell is not ssh`);
        return;
      }
      const at = words.indexOf('-p');
      if (at > 0 && words[at + 1] !== undefined)
        port = { value: words[at + 1]!, raw: rsh.raw, glob: -1, tilde: false };
      else if (words.some((w) => /^-(?:p\d+|[JoF])/.test(w) || w === '-J' || w === '-o' || w === '-F')) {
        unknownHost(cx, f.value, { method }, `rsync -e ${rsh.raw}: ssh options not followed`);
        return;
      }
    }
    const s = setup(cx, [], method);
    if (port) s.port = port;
    destination(cx, hostPart(f, 'rsync'), s, 0);
  });
};

export const sshReach: Record<string, CommandHandler> = { ssh, scp, sftp, rsync };
