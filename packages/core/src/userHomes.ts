import { readFileSync } from 'node:fs';
import { registerProcessCache } from './processCaches.js';

// `~user` needs the system's user database. It is read once, on the first `~user` seen, not per call:
// unlike a symlink, an account's home directory does not change between two tool calls of an agent.
let homes: Map<string, string> | undefined;
registerProcessCache(() => {
  homes = undefined;
});

function load(): Map<string, string> {
  const map = new Map<string, string>();
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const fields = line.split(':');
      const name = fields[0];
      const home = fields[5];
      if (name && home?.startsWith('/')) map.set(name, home);
    }
  } catch {
    // No user database: every `~user` is unknown, hence uncertain — the safe answer.
  }
  return map;
}

/** The home directory of `user` from /etc/passwd, or `undefined` when there is no such user. */
export function userHome(user: string): string | undefined {
  homes ??= load();
  return homes.get(user);
}
