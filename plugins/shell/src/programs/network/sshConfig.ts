import { readdirSync } from 'node:fs';
import { userInfo } from 'node:os';
import type { CommandContext } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
import { wildcardSource } from '../fnmatch.js';
import { literal } from '../spec.js';
import { readConfig } from './configFile.js';

// ssh's inputs besides argv (ssh(1) FILES/ENVIRONMENT, ssh_config(5); strace of OpenSSH 9.2p1).

/**
 * The config files ssh (and sftp, scp, which run it) reads when no `-F` is given: the user's, found through
 * the passwd entry's home — not `$HOME` (strace: `HOME=/x ssh` opened /root/.ssh/config) — then the
 * system's. `-F FILE` replaces both; `-F none` reads none. Their `ProxyCommand`, `LocalCommand`,
 * `KnownHostsCommand`, `Match exec`, `PKCS11Provider`… run programs: what the user wrote there is trusted,
 * what the agent could have written is not, so each file read (and each `Include`d one) is a marker.
 */
export const SSH_CONFIG_FILES: readonly { file: string; under: 'passwd-home' | 'root' }[] = [
  { file: '.ssh/config', under: 'passwd-home' },
  { file: '/etc/ssh/ssh_config', under: 'root' },
];

/**
 * Environment variables that change what ssh runs or touches. `runs`: `SSH_ASKPASS` is the program ssh
 * runs for a passphrase when it has no terminal (as an agent's tools do) and `DISPLAY` or
 * `SSH_ASKPASS_REQUIRE` says so. `harmless`: `SSH_AUTH_SOCK` lets the agent sign, never show, keys.
 * `HOME` is not read (above).
 */
export const SSH_ENV: Readonly<Record<string, 'runs' | 'harmless'>> = {
  SSH_ASKPASS: 'runs',
  SSH_ASKPASS_REQUIRE: 'harmless',
  SSH_AUTH_SOCK: 'harmless',
  DISPLAY: 'harmless',
};

const RUNS = 'ssh reads its configuration (which may run programs) from';
const MAX_INCLUDE_DEPTH = 4;

function passwdHome(): string | undefined {
  try {
    return userInfo().homedir;
  } catch {
    return undefined;
  }
}

/** `Include` targets of one line (relative ones: to ~/.ssh for the user's file, /etc/ssh for the system's). */
function includes(line: string, base: string): string[] | undefined {
  const m = /^\s*include(?:\s*=\s*|\s+)(.*?)\s*$/i.exec(line);
  if (!m) return undefined;
  const out: string[] = [];
  for (const w of m[1]!.match(/"[^"]*"|\S+/g) ?? []) {
    const p = w.replace(/^"(.*)"$/, '$1');
    const home = passwdHome();
    out.push(p.startsWith('~/') && home ? `${home}/${p.slice(2)}` : p.startsWith('/') ? p : `${base}/${p}`);
  }
  return out;
}

/** The files a glob `Include` names, sorted as glob(3) returns them; `undefined` when not listable. */
function globbed(pattern: string): string[] | undefined {
  const slash = pattern.lastIndexOf('/');
  const dir = pattern.slice(0, slash) || '/';
  if (/[*?[]/.test(dir)) return undefined;
  const re = new RegExp(`^${wildcardSource(pattern.slice(slash + 1), false)}$`);
  try {
    return readdirSync(dir)
      .filter((n) => re.test(n) && !n.startsWith('.'))
      .sort()
      .map((n) => `${dir}/${n}`);
  } catch {
    return [];
  }
}

/**
 * Reads one config file (a marker) and returns its text with each `Include` replaced by the included files'
 * text, in place, as ssh reads them (the network model matches `Host` blocks in it); `null` when some part
 * cannot be known.
 */
function configFile(cx: CommandContext, f: Field, base: string, depth: number): string | null {
  const r = readConfig(cx, f, RUNS, 'ssh-config');
  if ('absent' in r) return '';
  if (!('text' in r)) return null;
  let known = true;
  const out: string[] = [];
  for (const line of r.text.split('\n')) {
    const incs = includes(line, base);
    if (incs === undefined) {
      out.push(line);
      continue;
    }
    for (const inc of incs) {
      if (depth >= MAX_INCLUDE_DEPTH || /%|\$\{/.test(inc)) {
        cx.uncertain(`ssh config ${f.raw} includes ${inc}, which is not followed`, 'write', f.raw);
        known = false;
        continue;
      }
      const star = inc.search(/[*?[]/);
      if (star < 0) {
        const text = configFile(cx, literal(inc), base, depth + 1);
        if (text === null) known = false;
        else out.push(text);
        continue;
      }
      // A glob: whoever can write its directory chooses the files.
      const dir = inc.slice(0, inc.lastIndexOf('/', star)) || '/';
      cx.read(literal(dir), { runs: RUNS, tag: 'ssh-config-include' });
      const files = globbed(inc);
      if (files === undefined) known = false;
      else
        for (const file of files) {
          const text = configFile(cx, literal(file), base, depth + 1);
          if (text === null) known = false;
          else out.push(text);
        }
    }
  }
  return known ? out.join('\n') : null;
}

/**
 * The config files ssh reads (`-F` value, or the defaults) and the programs its environment names. Returns
 * their text in the order ssh reads it (includes in place; `null` when a part cannot be known), for the
 * network model's `Host` matching.
 */
export function sshInputs(cx: CommandContext, configOption: Field | undefined): string | null {
  // Read once a run: the path model and the network model (and each of git's ssh remotes) share them.
  const key = `ssh-config\0${configOption?.raw ?? ''}\0${configOption?.value ?? ''}`;
  return cx.once(key, () => readSshInputs(cx, configOption));
}

function readSshInputs(cx: CommandContext, configOption: Field | undefined): string | null {
  const texts: (string | null)[] = [];
  if (configOption) {
    if (configOption.uncertain !== undefined) texts.push(null);
    else if (configOption.value !== 'none') texts.push(configFile(cx, configOption, passwdHome() ?? '.', 0));
  } else {
    const home = passwdHome();
    for (const c of SSH_CONFIG_FILES) {
      if (c.under === 'root') texts.push(configFile(cx, literal(c.file), '/etc/ssh', 0));
      else if (home)
        texts.push(configFile(cx, literal(`${home.replace(/\/+$/, '')}/${c.file}`), `${home}/.ssh`, 0));
    }
  }
  const askpass = cx.variable('SSH_ASKPASS');
  if (askpass === null) cx.uncertain('ssh may run $SSH_ASKPASS, whose value is not known', 'write');
  else if (askpass !== undefined && askpass !== '') {
    if (askpass.includes('/')) cx.read(literal(askpass), { runs: 'ssh runs $SSH_ASKPASS', tag: 'askpass' });
    else cx.uncertain(`ssh may run $SSH_ASKPASS (${askpass}), found on PATH`, 'write');
  }
  return texts.some((t) => t === null) ? null : texts.join('\n');
}
