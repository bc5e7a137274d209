import { userInfo } from 'node:os';
import type { CommandContext } from '../../effects/extractTypes.js';
import type { Field } from '../../state/expandWord.js';
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

/** `Include` targets of a config (relative ones: to ~/.ssh for the user's file, /etc/ssh for the system's). */
function includes(text: string, base: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*include(?:\s*=\s*|\s+)(.*?)\s*$/i.exec(line);
    if (!m) continue;
    for (const w of m[1]!.match(/"[^"]*"|\S+/g) ?? []) {
      const p = w.replace(/^"(.*)"$/, '$1');
      const home = passwdHome();
      out.push(p.startsWith('~/') && home ? `${home}/${p.slice(2)}` : p.startsWith('/') ? p : `${base}/${p}`);
    }
  }
  return out;
}

function configFile(cx: CommandContext, f: Field, base: string, depth: number): void {
  const r = readConfig(cx, f, RUNS, 'ssh-config');
  if (!('text' in r)) return;
  for (const inc of includes(r.text, base)) {
    if (depth >= MAX_INCLUDE_DEPTH || /%|\$\{/.test(inc)) {
      cx.uncertain(`ssh config ${f.raw} includes ${inc}, which is not followed`, 'write', f.raw);
      continue;
    }
    const star = inc.search(/[*?[]/);
    if (star < 0) configFile(cx, literal(inc), base, depth + 1);
    else {
      // A glob: whoever can write its directory chooses the files.
      const dir = inc.slice(0, inc.lastIndexOf('/', star)) || '/';
      cx.read(literal(dir), { runs: RUNS, tag: 'ssh-config-include' });
    }
  }
}

/** The config files ssh reads (`-F` value, or the defaults) and the programs its environment names. */
export function sshInputs(cx: CommandContext, configOption: Field | undefined): void {
  if (configOption) {
    if (configOption.value !== 'none') configFile(cx, configOption, passwdHome() ?? '.', 0);
  } else {
    const home = passwdHome();
    for (const c of SSH_CONFIG_FILES) {
      if (c.under === 'root') configFile(cx, literal(c.file), '/etc/ssh', 0);
      else if (home) configFile(cx, literal(`${home.replace(/\/+$/, '')}/${c.file}`), `${home}/.ssh`, 0);
    }
  }
  const askpass = cx.variable('SSH_ASKPASS');
  if (askpass === null) cx.uncertain('ssh may run $SSH_ASKPASS, whose value is not known', 'write');
  else if (askpass !== undefined && askpass !== '') {
    if (askpass.includes('/')) cx.read(literal(askpass), { runs: 'ssh runs $SSH_ASKPASS', tag: 'askpass' });
    else cx.uncertain(`ssh may run $SSH_ASKPASS (${askpass}), found on PATH`, 'write');
  }
}
