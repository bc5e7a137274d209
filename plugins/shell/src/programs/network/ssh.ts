import { hostname, networkInterfaces } from 'node:os';
import type { CommandContext, CommandHandler } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { type ArgSpec, parseArgs, values } from '../argv.js';
import { unknownOptions } from '../spec.js';
import { sshInputs } from './sshConfig.js';

// OpenSSH 9.2 `ssh` usage line: the complete option table.
const SSH: ArgSpec = { short: 'BbcDEeFIiJLlmOopQRSWw', shortFlags: '46AaCfGgKkMNnqsTtVvXxYy', posix: true };
// OpenSSH 9.2 `sftp` usage line.
const SFTP: ArgSpec = { short: 'BbcDFiJloPRSsX', shortFlags: '46AaCfNpqrv', posix: true };

/**
 * `-o Key=Value` / `-o "Key Value"` (ssh_config(5)), by what the value is. Keys not listed here are
 * uncertain: several run programs or load libraries (ProxyCommand, LocalCommand, KnownHostsCommand,
 * PKCS11Provider, SecurityKeyProvider) and new ones appear with each release.
 */
const CONFIG_FILES: Readonly<Record<string, 'read' | 'write'>> = {
  identityfile: 'read',
  certificatefile: 'read',
  userknownhostsfile: 'write',
  globalknownhostsfile: 'read',
  include: 'read',
  controlpath: 'write',
  revokedhostkeys: 'read',
};
const CONFIG_HARMLESS = new Set(
  `batchmode connecttimeout stricthostkeychecking loglevel port user hostname serveraliveinterval
   serveralivecountmax compression forwardagent forwardx11 identitiesonly passwordauthentication
   pubkeyauthentication preferredauthentications addkeystoagent requesttty tcpkeepalive connectionattempts
   controlmaster controlpersist proxyjump hashknownhosts checkhostip updatehostkeys loglevel ciphers macs
   kexalgorithms hostkeyalgorithms pubkeyacceptedkeytypes pubkeyacceptedalgorithms addressfamily
   exitonforwardfailure gssapiauthentication kbdinteractiveauthentication numberofpasswordprompts
   visualhostkey setenv sendenv escapechar remotecommand sessiontype stdinnull forkafterauthentication
   clearallforwardings ipqos rekeylimit verifyhostkeydns fingerprinthash`.split(/\s+/),
);

// Names that are this machine: a command "run there" runs here, as some user, with that user's files.
const LOOPBACK_NAME =
  /^(?:localhost(?:\.localdomain)?|localhost\d*|ip6-localhost|ip6-loopback|\[?(?:::1?|::ffff:[0-9a-f.:]+|0:0:0:0:0:0:0:[01])\]?)$/i;

/** An IPv4 address as inet_aton reads it (`127.1`, `2130706433`, `0x7f.1`), or null. */
function inetAton(h: string): number | null {
  const parts = h.split('.');
  if (parts.length > 4) return null;
  const nums = parts.map((x) =>
    /^0x[0-9a-f]+$/i.test(x)
      ? Number.parseInt(x, 16)
      : /^0[0-7]*$/.test(x)
        ? Number.parseInt(x, 8)
        : /^[1-9]\d*$/.test(x)
          ? Number(x)
          : Number.NaN,
  );
  if (nums.some((n) => Number.isNaN(n))) return null;
  const last = nums.pop()!;
  let v = 0;
  nums.forEach((n, k) => {
    v += n * 256 ** (3 - k);
  });
  return v + last;
}

/**
 * Whether a host may be this machine: a loopback name or address, its own host name, or an address of one of
 * its interfaces. (A name that ~/.ssh/config or DNS maps here is not seen: README, limits.)
 */
function isThisMachine(host: string): boolean {
  if (LOOPBACK_NAME.test(host)) return true;
  const own = hostname().toLowerCase();
  if (host.toLowerCase() === own || host.toLowerCase() === own.split('.')[0]) return true;
  const v = inetAton(host);
  if (v === null) return networkInterfaceAddresses().has(host.replace(/^\[|\]$/g, '').toLowerCase());
  if (v >>> 24 === 127 || v === 0) return true;
  const dotted = [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join('.');
  return networkInterfaceAddresses().has(dotted);
}

function networkInterfaceAddresses(): Set<string> {
  return new Set(
    Object.values(networkInterfaces())
      .flat()
      .map((a) => a?.address.toLowerCase() ?? ''),
  );
}

/** The host part of `[user@]host[:port]` / `ssh://[user@]host[:port]`. */
function hostOf(v: string): string {
  const h = v
    .replace(/^ssh:\/\//i, '')
    .replace(/^[^@]*@/, '')
    .replace(/\/.*$/, '');
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  // `host:port` (ssh:// form) has one colon; a bare IPv6 address has several.
  return h.split(':').length === 2 ? h.slice(0, h.indexOf(':')) : h;
}

/** Returns the HostName an `-o HostName=…` gives, if any, so a loopback target can be caught. */
function configOption(cx: CommandContext, f: Field): string | undefined {
  if (f.uncertain !== undefined) {
    cx.uncertain(`${cx.name} -o value is not known: ${f.uncertain}`, 'write', f.raw);
    return undefined;
  }
  const m = /^\s*([A-Za-z0-9]+)\s*(?:=\s*|\s+)(.*)$/s.exec(f.value);
  const key = m?.[1]?.toLowerCase();
  if (!m || key === undefined) {
    cx.uncertain(`${cx.name} -o ${f.value} is not understood`, 'write', f.raw);
    return undefined;
  }
  const role = CONFIG_FILES[key];
  const value = m[2]!.replace(/^"(.*)"$/s, '$1');
  if (role) {
    // ssh expands `~` and `%d`/`%u`… tokens in these values itself: tokens name paths we cannot see.
    if (/%/.test(value) || value.toLowerCase() === 'none') {
      if (value.toLowerCase() !== 'none') cx.uncertain(`${cx.name} -o ${m[1]} has % tokens`, role, f.raw);
      return undefined;
    }
    cx.emit({ ...f, value, glob: -1, tilde: value.startsWith('~') }, role, { tag: key });
  } else if (!CONFIG_HARMLESS.has(key))
    cx.uncertain(`${cx.name} -o ${m[1]} may run a program or read files`, 'write', f.raw);
  return key === 'hostname' ? value : undefined;
}

/** Forwardings with a `/` in them name local Unix sockets (`-L /tmp/s:host:80`, `-R 9000:/var/run/docker.sock`). */
function forwarding(cx: CommandContext, f: Field): void {
  if (f.uncertain !== undefined || f.value.includes('/'))
    cx.uncertain(`${cx.name} forwards a local Unix socket`, 'write', f.raw);
}

/**
 * ssh: local files are keys (`-i`), configs (`-F`), the log (`-E`), the control socket (`-S`); `-o` is
 * judged key by key. A command after the host runs on that host, not here — unless the host is a loopback
 * name. Its config files (`sshConfig.ts`: `~/.ssh/config`, the system's, `-F FILE`, what they `Include`)
 * are markers: they may run programs, so one the agent could have written makes the call uncertain. ssh's
 * own reads of `~/.ssh/id_*` and `known_hosts` are not reported: they are the program's credentials, used
 * to authenticate and never shown to the caller; a key or config named on the command line is also judged
 * as a read like any other file (`ssh -F /etc/shadow` prints the lines it cannot parse).
 */
const ssh: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, SSH);
  unknownOptions(cx, p);
  let hostName: string | undefined;
  for (const o of p.opts) {
    const v = o.value;
    if (!v) continue;
    // `-F none` skips every config file, `-S none` turns off connection sharing.
    if ((o.name === '-F' || o.name === '-S') && v.value === 'none') continue;
    if (o.name === '-i' || o.name === '-F') cx.read(v, { tag: o.name.slice(1) });
    else if (o.name === '-E' || o.name === '-S') cx.write(v, { tag: o.name.slice(1) });
    else if (o.name === '-o') hostName = configOption(cx, v) ?? hostName;
    else if (o.name === '-L' || o.name === '-R' || o.name === '-D' || o.name === '-W') forwarding(cx, v);
    else if (o.name === '-I') cx.uncertain('ssh -I loads a PKCS#11 library', 'write', v.raw);
    else if (o.name === '-w') cx.uncertain('ssh -w creates tunnel devices', 'write', v.raw);
  }
  sshInputs(cx, values(p, '-F').at(-1));
  const [host, ...command] = p.operands;
  if (!host) return;
  if (host.uncertain !== undefined)
    cx.uncertain(`ssh host is not known: ${host.uncertain}`, 'write', host.raw);
  else if (command.length > 0 && isThisMachine(hostName ?? hostOf(host.value)))
    cx.uncertain(
      `ssh runs a command on ${hostName ?? host.value}, which may be this machine`,
      'write',
      host.raw,
    );
};

/**
 * sftp: `host:path [local]` downloads into `local` (or the cwd); otherwise it reads commands — `get`,
 * `put`, `!cmd` — from stdin or a `-b` batch file, which we do not analyse.
 */
const sftp: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, SFTP);
  unknownOptions(cx, p);
  for (const o of p.opts) {
    const v = o.value;
    if (!v) continue;
    if (o.name === '-i' || o.name === '-F') cx.read(v, { tag: o.name.slice(1) });
    else if (o.name === '-o') configOption(cx, v);
    else if (o.name === '-b') cx.uncertain('sftp -b runs batch commands (get, put, !cmd)', 'write', v.raw);
    else if (o.name === '-S' || o.name === '-D')
      cx.uncertain(`sftp ${o.name} runs a local program`, 'write', v.raw);
  }
  sshInputs(cx, values(p, '-F').at(-1));
  const [remote, local] = p.operands;
  const batch = values(p, '-b').length > 0;
  if (!batch && remote && /^[^/]*:./.test(remote.value) && p.operands.length <= 2) {
    if (local) cx.write(local, { scope: 'subtree', tag: 'download' });
    else cx.write({ value: '.', raw: '.', glob: -1, tilde: false }, { scope: 'subtree', tag: 'download' });
  } else if (!batch && remote) cx.uncertain('sftp reads get/put commands from stdin', 'write');
};

export const sshFamily: Record<string, CommandHandler> = { ssh, sftp };
