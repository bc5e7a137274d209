import type { CommandContext, CommandHandler } from '../effects/extractTypes.js';
import type { Field } from '../state/expandWord.js';
import { type ArgSpec, parseArgs, values } from './argv.js';
import { unknownOptions } from './spec.js';

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

// Hosts that are this machine: a command "run there" runs here, as some user, with that user's files.
const LOOPBACK =
  /^(?:[^@]*@)?(?:localhost(?:\.localdomain)?|ip6-localhost|127(?:\.\d+){1,3}|0(?:\.0\.0\.0)?|::1|\[::1\])$/i;

function configOption(cx: CommandContext, f: Field): void {
  if (f.uncertain !== undefined) {
    cx.uncertain(`${cx.name} -o value is not known: ${f.uncertain}`, 'write', f.raw);
    return;
  }
  const m = /^\s*([A-Za-z0-9]+)\s*(?:=\s*|\s+)(.*)$/s.exec(f.value);
  const key = m?.[1]?.toLowerCase();
  if (!m || key === undefined) {
    cx.uncertain(`${cx.name} -o ${f.value} is not understood`, 'write', f.raw);
    return;
  }
  const role = CONFIG_FILES[key];
  const value = m[2]!.replace(/^"(.*)"$/s, '$1');
  if (role) {
    // ssh expands `~` and `%d`/`%u`… tokens in these values itself: tokens name paths we cannot see.
    if (/%/.test(value) || value.toLowerCase() === 'none') {
      if (value.toLowerCase() !== 'none') cx.uncertain(`${cx.name} -o ${m[1]} has % tokens`, role, f.raw);
      return;
    }
    cx.emit({ ...f, value, glob: -1, tilde: value.startsWith('~') }, role, { tag: key });
  } else if (!CONFIG_HARMLESS.has(key))
    cx.uncertain(`${cx.name} -o ${m[1]} may run a program or read files`, 'write', f.raw);
}

/** Forwardings with a `/` in them name local Unix sockets (`-L /tmp/s:host:80`, `-R 9000:/var/run/docker.sock`). */
function forwarding(cx: CommandContext, f: Field): void {
  if (f.uncertain !== undefined || f.value.includes('/'))
    cx.uncertain(`${cx.name} forwards a local Unix socket`, 'write', f.raw);
}

/**
 * ssh: local files are keys (`-i`), configs (`-F`), the log (`-E`), the control socket (`-S`); `-o` is
 * judged key by key. A command after the host runs on that host, not here — unless the host is a loopback
 * name. ssh's own reads of `~/.ssh/config`, `~/.ssh/id_*` and `known_hosts` are not reported: they are
 * the program's credentials, used to authenticate and never shown to the caller (as git's config is not);
 * a key or config named on the command line is judged like any other file (`ssh -F /etc/shadow` prints
 * the lines it cannot parse).
 */
const ssh: CommandHandler = (cx) => {
  const p = parseArgs(cx.args, SSH);
  unknownOptions(cx, p);
  for (const o of p.opts) {
    const v = o.value;
    if (!v) continue;
    // `-F none` skips every config file, `-S none` turns off connection sharing.
    if ((o.name === '-F' || o.name === '-S') && v.value === 'none') continue;
    if (o.name === '-i' || o.name === '-F') cx.read(v, { tag: o.name.slice(1) });
    else if (o.name === '-E' || o.name === '-S') cx.write(v, { tag: o.name.slice(1) });
    else if (o.name === '-o') configOption(cx, v);
    else if (o.name === '-L' || o.name === '-R' || o.name === '-D' || o.name === '-W') forwarding(cx, v);
    else if (o.name === '-I') cx.uncertain('ssh -I loads a PKCS#11 library', 'write', v.raw);
    else if (o.name === '-w') cx.uncertain('ssh -w creates tunnel devices', 'write', v.raw);
  }
  const [host, ...command] = p.operands;
  if (!host) return;
  if (host.uncertain !== undefined)
    cx.uncertain(`ssh host is not known: ${host.uncertain}`, 'write', host.raw);
  else if (command.length > 0 && LOOPBACK.test(host.value.replace(/^ssh:\/\//, '').replace(/:\d+$/, '')))
    cx.uncertain(`ssh runs a command on ${host.value}, which is this machine`, 'write', host.raw);
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
  const [remote, local] = p.operands;
  const batch = values(p, '-b').length > 0;
  if (!batch && remote && /^[^/]*:./.test(remote.value) && p.operands.length <= 2) {
    if (local) cx.write(local, { scope: 'subtree', tag: 'download' });
    else cx.write({ value: '.', raw: '.', glob: -1, tilde: false }, { scope: 'subtree', tag: 'download' });
  } else if (!batch && remote) cx.uncertain('sftp reads get/put commands from stdin', 'write');
};

export const sshFamily: Record<string, CommandHandler> = { ssh, sftp };
